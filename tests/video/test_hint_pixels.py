"""Hints read back from real decoded frames of the sample's synthetic clips, whose objects are
known to the pixel: drawn marks sit on the objects in the resized frame, text boxes match the
pixels of the image the model receives, presence stops across long gaps, contours follow masks,
and the detector path (samples without tracks) gets every style."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PIL import Image as PILImage

from vqakit.benchmarks import load_benchmark
from vqakit.methods import MethodContext
from vqakit.models import Detection, Frames, Image, Text
from vqakit.schema import Timestamps, TrackPoint
from vqakit.systems.minerva_ego.hints import HintOptions, detected_parts, hinted_parts
from vqakit.video import Resize, sample_frames

WIDTH = 3  # mark line width at 448 px short side (the 270-px clips are enlarged to it: `upscale`)
SLACK = 3  # pixels: H.264 edges, bicubic resizing and the sample's inclusive box ends

# what each object looks like in the decoded clips: RGB thresholds halfway between its colour
# and the background's (chroma is subsampled, so edges bleed a pixel or two)
COLOURS = {
    "square": lambda p: (p[..., 2] > 172) & (p[..., 0] < 80),  # blue (40, 80, 220) on grey
    "bar": lambda p: (p[..., 0] > 180) & (p[..., 2] < 82),  # yellow (240, 210, 40)
    "circle": lambda p: (p[..., 0] > 170) & (p[..., 1] < 80),  # red (220, 40, 40)
    "car": lambda p: (p > 168).all(axis=-1),  # white (245, 245, 245) on green-grey (90, 100, 90)
}
LINE = re.compile(r"(\w+): \[(\d+), (\d+), (\d+), (\d+)\]")


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("sample")


def sample_of(bench, sample_id, **tracks):
    """A sample, with the named tracks' points replaced (label -> [(time, box or mask path)])."""
    sample = next(s for s in bench.samples if s.id == sample_id)
    objects = []
    for track in sample.objects:
        if track.label in tracks:
            points = [
                {"time_s": t, "mask": where} if isinstance(where, str) else {"time_s": t, "box": list(where)}
                for t, where in tracks[track.label]
            ]
            track = track.model_copy(update={"points": [TrackPoint(**p) for p in points]})
        objects.append(track)
    return sample.model_copy(update={"objects": objects})


def run_hints(bench, sample, style, frames, *, gap=10.0, model=None, root=None):
    """Parts as the hints method sends them: (images, text lines, times)."""
    protocol = bench.card.protocol.model_copy(update={"frames": frames, "short_side": 448, "upscale": True})
    options = HintOptions(style=style, max_gap_s=gap)
    context = MethodContext(root=root or bench.root, protocol=protocol, model=model, options=options)
    parts, times = hinted_parts(sample, context)
    framed = [p for p in parts if isinstance(p, Frames)]
    images = list(framed[0].images) if framed else [p.image for p in parts if isinstance(p, Image)]
    return images, [p.text for p in parts if isinstance(p, Text)], times


def plain(bench, sample, times, size=None):
    """The same frames without marks, at the size the hints method sent them."""
    frames = sample_frames(
        bench.root / sample.videos[0].path, Timestamps(tuple(times)), resize=Resize(448, upscale=True)
    )
    images = [f.image for f in frames]
    if size is not None and size != (images[0].shape[1], images[0].shape[0]):
        images = [np.asarray(PILImage.fromarray(i).resize(size, PILImage.Resampling.BICUBIC)) for i in images]
    return images


def pixel_box(image, label, near):
    """The bounding box (x1, y1 exclusive) of the object's pixels around `near`."""
    x0, y0, x1, y1 = (int(v) for v in near)
    top, left = max(0, y0 - 12), max(0, x0 - 12)
    region = COLOURS[label](image[top : y1 + 12, left : x1 + 12])
    ys, xs = np.nonzero(region)
    assert xs.size, f"no {label} pixels near {near}"
    return left + xs.min(), top + ys.min(), left + xs.max() + 1, top + ys.max() + 1


def assert_close(box, expected, slack=SLACK):
    assert np.abs(np.subtract(box, expected)).max() <= slack, (box, expected)


def lines_of(texts):
    """{time line: [(label, box)]} from the frame lines (the first text is the reading guide)."""
    return [[(m[1], tuple(int(v) for v in m.groups()[1:])) for m in LINE.finditer(t)] for t in texts[1:]]


def assert_ring(drawn, undrawn, boxes):
    """The changed pixels are red and form rectangles just outside the boxes, on all four sides."""
    changed = (drawn != undrawn).any(axis=2)
    allowed = np.zeros_like(changed)
    for x0, y0, x1, y1 in boxes:
        outer = np.zeros_like(changed)
        outer[
            max(0, y0 - WIDTH - SLACK) : y1 + WIDTH + SLACK, max(0, x0 - WIDTH - SLACK) : x1 + WIDTH + SLACK
        ] = 1
        inner = np.zeros_like(changed)
        inner[y0 + SLACK : y1 - SLACK, x0 + SLACK : x1 - SLACK] = 1
        ring = outer & ~inner
        allowed |= ring
        for side in (
            ring[:, : x0 + SLACK],
            ring[:, x1 - SLACK :],
            ring[: y0 + SLACK, :],
            ring[y1 - SLACK :, :],
        ):
            assert side.any()
        for edge in (
            changed[y0:y1, max(0, x0 - WIDTH) : x0],
            changed[y0:y1, x1 : x1 + WIDTH],
            changed[max(0, y0 - WIDTH) : y0, x0:x1],
            changed[y1 : y1 + WIDTH, x0:x1],
        ):
            assert edge.mean() > 0.6, "a side of the box is missing"
    assert changed.any() and not (changed & ~allowed).any(), np.argwhere(changed & ~allowed)[:5]
    red = drawn[changed].astype(int)
    assert (np.abs(red - [255, 0, 0]).sum(axis=1) < 60).mean() > 0.9


@pytest.mark.parametrize("style", ["box+text", "box+text1000"])
def test_box_and_text_agree_with_the_objects_pixels(bench, style):
    sample = next(s for s in bench.samples if s.id == "wb-disappears-after")
    images, texts, times = run_hints(bench, sample, style, "uniform:8")
    undrawn = plain(bench, sample, times)
    assert images[0].shape == (448, 796, 3) and len(texts) == 1 + len(images)
    assert "796 pixels" in texts[0] if style == "box+text" else "0-1000" in texts[0]
    seen = set()
    for drawn, clean, objects in zip(images, undrawn, lines_of(texts), strict=True):
        boxes = []
        for label, box in objects:
            if style == "box+text1000":  # [ymin, xmin, ymax, xmax] in thousandths
                ymin, xmin, ymax, xmax = box
                box = (xmin * 796 / 1000, ymin * 448 / 1000, xmax * 796 / 1000, ymax * 448 / 1000)
            box = tuple(round(v) for v in box)
            assert_close(pixel_box(clean, label, box), box)  # the text gives the object where it is
            boxes.append(box)
            seen.add(label)
        if boxes:
            assert_ring(drawn, clean, boxes)  # and the box is drawn there too
        else:
            assert (drawn == clean).all()
    assert seen == {"circle", "square", "bar"}


def test_text_boxes_are_in_the_size_the_model_receives(bench, tmp_path):
    """An API model shrinks images to its image_max_side; the hints method sends them at that
    size, draws at that size, and gives boxes in its pixels."""
    from vqakit.models import Model

    model = Model("openai-compatible:http://127.0.0.1:9/v1#m", image_max_side=640)  # never called
    sample = next(s for s in bench.samples if s.id == "wb-disappears-after")
    images, texts, times = run_hints(bench, sample, "text", "uniform:8", model=model)
    assert {i.shape for i in images} == {(360, 640, 3)}
    assert "640 pixels wide and 360 pixels high" in " ".join(texts[0].split())
    undrawn = plain(bench, sample, times, size=(640, 360))
    for image, clean, objects in zip(images, undrawn, lines_of(texts), strict=True):
        assert (image == clean).all()  # `text` alone draws nothing
        for label, box in objects:
            assert_close(pixel_box(image, label, box), box)
    # a replayed (local) model gets the frames at the protocol's size
    (tmp_path / "replies.jsonl").write_text("")
    replay = Model(f"replay:{tmp_path / 'replies.jsonl'}", image_max_side=640)
    assert run_hints(bench, sample, "text", "uniform:2", model=replay)[0][0].shape == (448, 796, 3)


def test_interpolated_box_follows_a_movement_between_its_end_points(bench):
    """HD-EPIC style: the car annotated only at the first and last frame of its movement."""
    sample = sample_of(
        bench, "cross-light-at-start", car=[(3.0, (15, 185, 85, 215)), (6.0, (395, 185, 465, 215))]
    )
    images, _, times = run_hints(bench, sample, "box", "at:3.0,3.6,4.2,4.8,5.4,6.0")
    for drawn, clean in zip(images, plain(bench, sample, times), strict=True):
        changed = np.argwhere((drawn != clean).any(axis=2))
        x0, y0 = changed.min(axis=0)[::-1] + WIDTH
        x1, y1 = changed.max(axis=0)[::-1] + 1 - WIDTH
        near = (x0, y0, x1, y1)
        assert_close(pixel_box(clean, "car", near), near)
        assert_ring(drawn, clean, [tuple(int(v) for v in near)])


def test_presence_stops_across_a_long_gap(bench):
    """The square annotated at 0 s and 8.96 s only: with a 5 s gap it is marked at the two
    annotated frames and nowhere between; with the 10 s default, everywhere between."""
    sample = sample_of(bench, "wb-disappears-after")
    sample = sample.model_copy(update={"objects": [t for t in sample.objects if t.label == "square"]})
    frames = "at:0.0,2.0,4.0,6.0,8.96"
    short, _, times = run_hints(bench, sample, "box", frames, gap=5.0)
    bridged, _, _ = run_hints(bench, sample, "box", frames)
    undrawn = plain(bench, sample, times)
    square = tuple(round(v) for v in (216 * 796 / 480, 66 * 448 / 270, 264 * 796 / 480, 114 * 448 / 270))
    for k, (gapped, full, clean) in enumerate(zip(short, bridged, undrawn, strict=True)):
        assert_ring(full, clean, [square])
        if k in (0, 4):
            assert_ring(gapped, clean, [square])
        else:
            assert (gapped == clean).all()
    # temporal selection still sends the annotated frame at 8.96 s, off its 0.5 s grid
    _, _, chosen = run_hints(bench, sample, "box+temporal", "uniform:4", gap=5.0)
    assert 8.96 in [round(t, 2) for t in chosen]


def test_contour_from_masks_follows_the_moving_object(bench, tmp_path):
    """Masks at the two ends of the car's movement; between them the nearer mask is fitted into
    the interpolated box, so the red outline hugs the car's border in the resized frame."""
    (tmp_path / "media/synthetic").mkdir(parents=True)
    (tmp_path / "media/synthetic/crossing.mp4").symlink_to(bench.root / "media/synthetic/crossing.mp4")
    for name, x0 in (("start", 15), ("end", 395)):
        mask = np.zeros((270, 480), np.uint8)
        mask[185:216, x0 : x0 + 71] = 255
        PILImage.fromarray(mask).save(tmp_path / f"{name}.png")
    sample = sample_of(bench, "cross-light-at-start", car=[(3.0, "start.png"), (6.0, "end.png")])
    images, _, times = run_hints(bench, sample, "contour", "at:3.0,4.5,6.0", root=tmp_path)
    for drawn, clean in zip(images, plain(bench, sample, times), strict=True):
        changed = (drawn != clean).any(axis=2)
        x0, y0, x1, y1 = pixel_box(clean, "car", (0, 280, 796, 400))  # the road
        inside = np.zeros_like(changed)
        inside[y0 - SLACK : y1 + SLACK, x0 - SLACK : x1 + SLACK] = True
        core = np.zeros_like(changed)
        core[y0 + WIDTH + SLACK : y1 - WIDTH - SLACK, x0 + WIDTH + SLACK : x1 - WIDTH - SLACK] = True
        assert not (changed & ~inside).any() and not (changed & core).any()  # on the border only
        # every column has outline near the top and bottom edges, every row near the left and right
        assert changed[y0 - SLACK : y0 + WIDTH + SLACK, x0 + SLACK : x1 - SLACK].any(axis=0).all()
        assert changed[y1 - WIDTH - SLACK : y1 + SLACK, x0 + SLACK : x1 - SLACK].any(axis=0).all()
        assert changed[y0 + SLACK : y1 - SLACK, x0 - SLACK : x0 + WIDTH + SLACK].any(axis=1).all()
        assert changed[y0 + SLACK : y1 - SLACK, x1 - WIDTH - SLACK : x1 + SLACK].any(axis=1).all()


class ColourDetector:
    """Stands in for OWLv2: finds the blue square by its colour in the image it is given."""

    def __init__(self):
        self.sizes = set()

    def detect(self, image, categories):
        self.sizes.add(image.shape)
        ys, xs = np.nonzero(COLOURS["square"](image))
        if "square" not in categories or not xs.size:
            return []
        return [Detection("square", (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1), 0.9)]


@pytest.mark.parametrize(
    "style",
    ["box", "contour", "circle", "classes", "text", "text1000", "box+text", "circle+classes+temporal"],
)
def test_detector_path_gets_every_style(bench, style):
    """Samples without tracks: the detector's boxes (pixels of the frame the model receives)
    are drawn and written like track boxes; `contour` without masks draws the box."""
    sample = next(s for s in bench.samples if s.id == "wb-disappears-after")  # the square leaves at 9 s
    protocol = bench.card.protocol.model_copy(
        update={"frames": "uniform:4", "short_side": 448, "upscale": True}
    )
    detector = ColourDetector()
    context = MethodContext(
        root=bench.root, protocol=protocol, options=HintOptions(style=style), shared={"detector": detector}
    )
    parts, times = detected_parts(sample, context, ["square"])
    framed = [p for p in parts if isinstance(p, Frames)]
    images = list(framed[0].images) if framed else [p.image for p in parts if isinstance(p, Image)]
    texts = [p.text for p in parts if isinstance(p, Text)]
    assert detector.sizes == {(448, 796, 3)} and len(images) == len(times) == 4
    undrawn = plain(bench, sample, times)
    found = [detector.detect(image, ["square"]) for image in undrawn]
    if "temporal" in style:  # 8 candidates, 6 with the square: the budget goes to those first
        assert all(found) and times[-1] < 9.0
    else:
        assert [bool(f) for f in found] == [True, True, True, False]  # 1.5, 4.5, 7.5, 10.5 s
    for k, (drawn, clean, detections) in enumerate(zip(images, undrawn, found, strict=True)):
        boxes = [tuple(int(v) for v in d.box) for d in detections]
        if boxes and style in ("box", "contour", "box+text"):
            assert_ring(drawn, clean, boxes)
        changed = np.argwhere((drawn != clean).any(axis=2))
        if not boxes or style in ("text", "text1000"):
            assert changed.size == 0
        else:  # marks and labels stay around the square: 20% beyond it for circles, labels above
            x0, y0, x1, y1 = boxes[0]
            pad_x, pad_y = 0.2 * (x1 - x0) + WIDTH + SLACK, 0.2 * (y1 - y0) + WIDTH + SLACK
            above = 30 if "classes" in style else 0
            assert (
                changed.size and (changed[:, 1] >= x0 - pad_x).all() and (changed[:, 1] <= x1 + pad_x).all()
            )
            assert (changed[:, 0] >= y0 - pad_y - above).all() and (changed[:, 0] <= y1 + pad_y).all()
        if texts:
            line = texts[1 + k]
            if "text1000" in style:
                expected = [
                    [round(1000 * b[i] / s) for i, s in ((1, 448), (0, 796), (3, 448), (2, 796))]
                    for b in boxes
                ]
            else:
                expected = [list(b) for b in boxes]
            assert [list(box) for _, box in lines_of(texts)[k]] == expected, line
    assert bool(texts) == bool({"text", "text1000"} & set(style.split("+")))
