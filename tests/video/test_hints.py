"""Spatio-temporal hints on the sample's synthetic workbench clip, whose object boxes are exact."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.schema import ObjectTrack, Timestamps
from vqakit.video import Mark, box_at, draw_marks, marks_at, parse_style, sample_frames, select_times


def track(times_boxes, label="cup"):
    return ObjectTrack(
        id=f"{label}-0123456789abcdef",
        label=label,
        points=[{"time_s": t, "box": list(b)} for t, b in times_boxes],
    )


GAP = 10.0  # the hints method's default max_gap_s


def test_interpolation_and_presence():
    moving = track([(4.0, (0, 0, 10, 10)), (6.0, (100, 50, 110, 60))])
    assert box_at(moving, 3.9, max_gap_s=GAP) is None and box_at(moving, 6.1, max_gap_s=GAP) is None
    assert box_at(moving, 5.0, max_gap_s=GAP) == pytest.approx((50, 25, 60, 35))
    assert box_at(moving, 4.0, max_gap_s=GAP) == (0, 0, 10, 10)
    assert box_at(moving, 6.01, max_gap_s=GAP) == (100, 50, 110, 60)  # the annotated frame, within 20 ms


def test_presence_stops_at_gaps_longer_than_the_maximum():
    # two movements: 10-12 s and 40-43 s; the object rests (unseen) for 28 s in between
    moves = track(
        [(10.0, (0, 0, 10, 10)), (12.0, (20, 0, 30, 10)), (40.0, (50, 0, 60, 10)), (43.0, (80, 0, 90, 10))]
    )
    assert box_at(moves, 11.0, max_gap_s=GAP) == pytest.approx((10, 0, 20, 10))
    assert box_at(moves, 41.5, max_gap_s=GAP) == pytest.approx((65, 0, 75, 10))
    for rest in (12.1, 20.0, 39.9):
        assert box_at(moves, rest, max_gap_s=GAP) is None
    assert box_at(moves, 26.0, max_gap_s=30.0) == pytest.approx((35, 0, 45, 10))  # a longer gap bridges
    assert box_at(moves, 11.0, max_gap_s=1.0) is None  # a shorter one keeps only the points
    assert box_at(moves, 12.0, max_gap_s=1.0) == (20, 0, 30, 10)
    assert marks_at([moves], 20.0, max_gap_s=GAP) == []
    # temporal selection takes the movements (and their exact end points), not the rest
    movements = [10.0, 10.5, 11.0, 11.5, 12.0, 40.0, 40.5, 41.0, 41.5, 42.0, 42.5, 43.0]
    assert select_times([moves], 60.0, 12, max_gap_s=GAP) == movements


def test_temporal_selection_keeps_isolated_annotated_frames():
    # points 8.96 s apart with a 5 s maximum gap: present only at the two annotated frames,
    # and 8.96 (off the 0.5 s grid) is still selected
    square = track([(0.0, (216, 66, 264, 114)), (8.96, (216, 66, 264, 114))], "square")
    assert select_times([square], 12.0, 4, max_gap_s=5.0) == [0.0, 3.0, 8.96, 9.0]
    bridged = [k / 2 for k in range(18)] + [8.96]  # with the 10 s default: the whole span
    assert select_times([square], 12.0, 19, max_gap_s=GAP) == bridged


def test_temporal_selection_exact_times():
    present = track([(4.0, (0, 0, 10, 10)), (7.0, (0, 0, 10, 10))])
    # 7 times where the object is, then uniform fill 2, 6, 10 (6.0 is already taken)
    assert select_times([present], 12.0, 10, max_gap_s=GAP) == [2.0, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0, 10.0]
    # more present times than the budget: spread evenly over them
    assert select_times([present], 12.0, 3, max_gap_s=GAP) == [4.0, 5.5, 7.0]
    assert select_times([], 12.0, 3, max_gap_s=GAP) == [2.0, 6.0, 10.0]


def test_style_parsing():
    assert parse_style("circles+classes+temporal") == {"circle", "classes", "temporal"}
    assert parse_style("boxes+text1000") == {"box", "text1000"}
    for bad in ("glow", "text+text1000", ""):
        with pytest.raises(ValueError):
            parse_style(bad)


@pytest.mark.parametrize("style", ["circle", "box", "circle+classes"])
def test_drawing_changes_pixels_only_around_the_object(style):
    bench = load_benchmark("sample")
    sample = next(s for s in bench.samples if s.id == "wb-circle-motion")
    frame = sample_frames(bench.root / sample.videos[0].path, Timestamps((5.0,)))[0]
    marks = marks_at(sample.objects, frame.time_s, max_gap_s=GAP)
    assert len(marks) == 1
    x0, y0, x1, y1 = marks[0].box  # the red circle mid-move, known exactly from the scene data
    drawn = draw_marks(frame.image, marks, parse_style(style), (480, 270))
    changed = np.argwhere((drawn != frame.image).any(axis=2))
    assert changed.size > 0
    pad_x, pad_y = 0.2 * (x1 - x0) + 5, 0.2 * (y1 - y0) + 5
    inside = (
        (changed[:, 1] >= x0 - pad_x)
        & (changed[:, 1] <= x1 + pad_x)
        & (changed[:, 0] >= y0 - pad_y)
        & (changed[:, 0] <= y1 + pad_y)
    )
    if "classes" in style:  # the label sits above the mark, starting at its left edge
        label = (
            (changed[:, 1] >= x0 - 2)
            & (changed[:, 1] <= x0 + 80)
            & (changed[:, 0] >= y0 - pad_y - 25)
            & (changed[:, 0] <= y0 - pad_y + 2)
        )
        inside |= label
    assert inside.all(), changed[~inside][:5]
    ring = drawn[changed[:, 0], changed[:, 1]]
    assert (np.abs(ring.astype(int) - [255, 0, 0]).sum(axis=1) < 60).mean() > 0.5  # marks are red


def test_no_marks_leaves_the_frame_untouched():
    image = np.zeros((20, 30, 3), np.uint8)
    assert draw_marks(image, [], {"circle"}, (30, 20)) is image
    assert draw_marks(image, [Mark("x", (1, 1, 5, 5))], {"text"}, (30, 20)) is image


def test_hints_method_sends_the_selected_frames(tmp_path):
    bench = load_benchmark("sample")
    replies = tmp_path / "r.jsonl"
    replies.write_text("".join(json.dumps({"sample_id": s.id, "reply": "A"}) + "\n" for s in bench.samples))
    config = EvalConfig(
        bench="sample",
        method="hints",
        model=f"replay:{replies}",
        frames="uniform:8",
        limit=30,
        hints="circle+classes+temporal",
    )
    run_eval(config, tmp_path / "run")
    predictions = {p["sample_id"]: p for p in map(json.loads, (tmp_path / "run/predictions.jsonl").open())}
    sample = next(s for s in bench.samples if s.id == "wb-disappears-after")
    expected = select_times([t for t in sample.objects if t.video == 0], 12.0, 8, max_gap_s=GAP)
    assert predictions[sample.id]["frames_s"] == pytest.approx(expected, abs=0.041)  # frame times, 25 fps
    assert all(p["error"] is None for p in predictions.values())


def test_cli_writes_hinted_frames(tmp_path):
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "hints",
            "--bench",
            "sample",
            "--sample",
            "count-end",
            "--style",
            "box+classes",
            "--frames",
            "uniform:4",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    listing = json.loads((tmp_path / "frames.json").read_text())
    assert len(listing["frames"]) == 4 and (tmp_path / "hinted_0000.png").exists()


def test_contour_follows_the_mask_border():
    yy, xx = np.mgrid[0:60, 0:80]
    disc = (yy - 30) ** 2 + (xx - 40) ** 2 <= 15**2
    image = np.zeros((60, 80, 3), np.uint8)
    drawn = draw_marks(image, [Mark("ball", (25, 15, 56, 46), disc)], {"contour"}, (80, 60))
    changed = (drawn != image).any(axis=2)
    assert changed.sum() > 0 and not changed[~disc].any()  # only inside the mask
    assert not changed[(yy - 30) ** 2 + (xx - 40) ** 2 <= 10**2].any()  # and only near its border
    assert (drawn[changed] == [255, 0, 0]).all()


def test_mask_points_give_boxes_and_contours(tmp_path):
    from PIL import Image as PILImage

    from vqakit.video._hints import mask_at

    mask = np.zeros((40, 60), np.uint8)
    mask[10:20, 30:50] = 255
    PILImage.fromarray(mask).save(tmp_path / "m.png")
    tracked = ObjectTrack(
        id="lid-0123456789abcdef",
        label="lid",
        points=[{"time_s": 1.0, "mask": "m.png"}, {"time_s": 3.0, "mask": "m.png"}],
    )
    assert box_at(tracked, 2.0, tmp_path, max_gap_s=GAP) == (30.0, 10.0, 50.0, 20.0)
    assert mask_at(tracked, 2.9, tmp_path, max_gap_s=GAP).sum() == 200
    assert mask_at(tracked, 2.0, tmp_path, max_gap_s=1.0) is None  # absent across the gap


def test_class_label_goes_below_a_mark_at_the_top_edge():
    image = np.zeros((120, 200, 3), np.uint8)
    for box, above in (((60, 2, 100, 30), False), ((60, 60, 100, 90), True)):
        drawn = draw_marks(image, [Mark("cup", box)], {"classes"}, (200, 120))
        rows = np.nonzero((drawn != image).any(axis=2))[0]
        assert rows.size and ((rows < box[1]).all() if above else (rows > box[3]).all())
