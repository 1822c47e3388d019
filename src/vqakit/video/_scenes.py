"""Shots with PySceneDetect's detectors, and merging of consecutive shots that look alike.

PySceneDetect's ContentDetector and AdaptiveDetector (their algorithms, thresholds and
downscaling rule) are fed from vqakit's own PyAV decode loop rather than its SceneManager:

- the frames are vqakit's: same FFmpeg build as `sample_frames`, presentation order, and each
  frame is handed over under its vqakit frame number, so a cut *is* a frame number of the frame
  index and `Shot.start_s` is exactly the time `sample_frames` reports for `Shot.start_frame`
  (no clock to translate: PySceneDetect counts from the stream's start time, vqakit from the
  first frame);
- a start time seeks like `sample_frames` does (keyframe index, restart on overshoot), where
  the PyAV backend's own seek lands late in MPEG-TS files;
- it is at least as fast as SceneManager with either backend (benchmarks/scene_detection.py:
  1.7-2.8x a plain decode against 1.8-3.1x; about 2x faster than the PyAV backend on small
  frames, which builds a new colour converter per frame and times frames in exact fractions).

Merging compares the last frames of one shot with the first frames of the next. Without an
embedder the distance is the total variation between their colour histograms (0: same colours,
1: no colour in common), blind to motion and framing; with an image embedder it is 1 - cosine of
their mean embeddings.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal, Protocol

import av
import numpy as np

from vqakit.extras import require_extra
from vqakit.video._decode import _start_keyframes, decode_frames
from vqakit.video._errors import VideoError
from vqakit.video._index import TIME_EPSILON_S, FrameIndex, frame_index, open_video
from vqakit.video._resize import Resize

Detector = Literal["content", "adaptive"]
DEFAULT_THRESHOLDS: dict[str, float] = {"content": 27.0, "adaptive": 3.0}
"""PySceneDetect's own defaults: mean HSV change for `content`, ratio to the neighbours' change
for `adaptive` (which also needs a change of at least 15, `min_content_val`)."""
HISTOGRAM_MERGE_DISTANCE = 0.15
"""Measured on synthetic clips: two framings of one scene <= 0.08, a new scene in the same
colours >= 0.21, cuts between real street shots (bikes.mp4) 0.29-0.74."""
EMBEDDING_MERGE_DISTANCE = 0.15
"""A starting point for 1 - cosine; what separates scenes depends on the model, so pass yours."""


@dataclass(frozen=True)
class Shot:
    """A run of frames between two cuts: frames `start_frame` .. `end_frame - 1`, covering the
    half-open time interval [start_s, end_s) on vqakit's clock."""

    index: int
    start_s: float
    end_s: float
    start_frame: int
    end_frame: int  # exclusive

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s

    @property
    def frame_count(self) -> int:
        return self.end_frame - self.start_frame


class ImageEmbedder(Protocol):
    """Anything with `embed_images` (e.g. `vqakit.models.ImageTextEmbedder`): RGB arrays in,
    one L2-normalised row per image out."""

    def embed_images(self, images: Sequence[np.ndarray]) -> np.ndarray: ...


def _frame_range(index: FrameIndex, start_s: float | None, end_s: float | None) -> tuple[int, int]:
    first = 0 if start_s is None else index.frame_at(max(0.0, start_s))
    stop = index.frame_count
    if end_s is not None:
        stop = int(np.searchsorted(index.times_s, end_s - TIME_EPSILON_S, side="left"))
    if stop <= first:
        raise VideoError(index.path, f"no frames between {start_s}s and {end_s}s")
    return first, stop


def _frames(index: FrameIndex, first: int, stop: int, *, seek: bool = True) -> Iterator[tuple[int, Any]]:
    """(frame number, PyAV frame) for frames first .. stop - 1, decoded in presentation order."""
    container, stream = open_video(index.path)
    overshot = False
    with container:
        stream.codec_context.thread_type = "AUTO"
        if first and seek:
            key = int(_start_keyframes(index, np.array([first]))[0])
            container.seek(int(index.decode_dts[key]), stream=stream, backward=True)
        started = False
        for frame in container.decode(stream):
            number = int(np.searchsorted(index.pts, frame.pts)) if frame.pts is not None else -1
            if not 0 <= number < index.frame_count or index.pts[number] != frame.pts or number < first:
                continue  # before the window (decoding starts at its keyframe) or not indexed
            if not started and number > first and seek:
                overshot = True  # the demuxer's seek landed past the window's start
                break
            if number >= stop:
                return
            started = True
            yield number, frame
    if overshot:
        yield from _frames(index, first, stop, seek=False)


def _make_detector(detector: str, threshold: float | None, min_shot_s: float) -> Any:
    """A PySceneDetect SceneDetector (`process_frame`, `post_process`)."""
    from scenedetect import AdaptiveDetector, ContentDetector

    if detector not in DEFAULT_THRESHOLDS:
        raise ValueError(f"unknown shot detector {detector!r}: use content or adaptive")
    value = DEFAULT_THRESHOLDS[detector] if threshold is None else threshold
    if detector == "content":
        return ContentDetector(threshold=value, min_scene_len=float(min_shot_s))
    return AdaptiveDetector(adaptive_threshold=value, min_scene_len=float(min_shot_s))


def _shots_from_cuts(index: FrameIndex, bounds: list[int]) -> list[Shot]:
    def time_of(frame: int) -> float:
        return float(index.times_s[frame]) if frame < index.frame_count else index.duration_s

    return [
        Shot(i, time_of(start), time_of(end), start, end) for i, (start, end) in enumerate(pairwise(bounds))
    ]


def detect_shots(
    path: str | Path,
    *,
    detector: Detector = "content",
    threshold: float | None = None,
    min_shot_s: float = 0.5,
    start_s: float | None = None,
    end_s: float | None = None,
) -> list[Shot]:
    """Cut a video (or its [start_s, end_s) part) into shots with a PySceneDetect detector.

    `threshold` defaults to PySceneDetect's (27 for `content`, 3.0 for `adaptive`); no two cuts
    are closer than `min_shot_s`. The shots tile the range without gaps; with no cut there is one.
    """
    require_extra("scenes", "scene detection")
    from av.video.reformatter import VideoReformatter
    from scenedetect import FrameTimecode
    from scenedetect.scene_manager import compute_downscale_factor

    index = frame_index(path)
    first, stop = _frame_range(index, start_s, end_s)
    container, stream = open_video(path)
    with container:
        width, height = stream.codec_context.width, stream.codec_context.height
        rate = stream.average_rate or stream.guessed_rate
    # the frame number stands for time: min_shot_s converts at the average rate
    fps = (
        Fraction(rate.numerator, rate.denominator) if rate else Fraction(index.frame_count / index.duration_s)
    )
    scale = compute_downscale_factor(width)  # PySceneDetect's rule: about 256 px wide
    size = {"width": max(1, round(width / scale)), "height": max(1, round(height / scale))}
    scorer = _make_detector(detector, threshold, min_shot_s)
    convert = VideoReformatter()  # one converter for every frame, scaling as it converts
    cuts: list[Any] = []
    position = None
    try:
        for number, frame in _frames(index, first, stop):
            image = convert.reformat(frame, format="bgr24", interpolation="BILINEAR", **size).to_ndarray()
            position = FrameTimecode(number, fps)
            cuts += scorer.process_frame(position, image)
        if position is not None:
            cuts += scorer.post_process(position)
    except av.FFmpegError as error:
        raise VideoError(path, f"decoding failed during shot detection ({error})") from None
    numbers = sorted({n for n in (int(cut.frame_num) for cut in cuts) if first < n < stop})
    return _shots_from_cuts(index, [first, *numbers, stop])


def _end_frames(shot: Shot, head: bool, probe_frames: int, per_end: int) -> list[int]:
    """Up to `per_end` frame numbers spread over the first (head) or last `probe_frames`."""
    span = min(probe_frames, shot.frame_count)
    low, high = (
        (shot.start_frame, shot.start_frame + span - 1)
        if head
        else (shot.end_frame - span, shot.end_frame - 1)
    )
    return sorted({round(float(x)) for x in np.linspace(low, high, per_end)})


def _histogram(image: np.ndarray, bins: int = 8) -> np.ndarray:
    quantised = (image[..., :3].astype(np.int32) * bins) // 256
    codes = (quantised[..., 0] * bins + quantised[..., 1]) * bins + quantised[..., 2]
    counts = np.bincount(codes.ravel(), minlength=bins**3).astype(np.float64)
    return counts / counts.sum()


def shot_distances(
    path: str | Path,
    shots: Sequence[Shot],
    *,
    embedder: ImageEmbedder | None = None,
    probe_s: float = 0.5,
    frames_per_end: int = 3,
    short_side: int = 128,
) -> list[float]:
    """Visual distance between the end of each shot and the start of the next (one fewer than
    `shots`): colour-histogram total variation, or 1 - cosine of mean embeddings with `embedder`.
    Each end is `frames_per_end` frames spread over its last (or first) `probe_s` seconds."""
    if len(shots) < 2:
        return []
    index = frame_index(path)
    rate = (index.frame_count / index.duration_s) if index.duration_s else 25.0
    probe_frames = max(1, round(probe_s * rate))
    ends = [
        (
            _end_frames(s, False, probe_frames, frames_per_end),
            _end_frames(n, True, probe_frames, frames_per_end),
        )
        for s, n in pairwise(shots)
    ]
    numbers = sorted({f for tail, head in ends for f in (*tail, *head)})
    frames = decode_frames(index, np.asarray(numbers), resize=Resize(short_side=short_side))
    images = {f.frame_number: f.image for f in frames}
    if embedder is not None:
        rows = np.asarray(embedder.embed_images([images[n] for n in numbers]), dtype=np.float64)
        vectors = dict(zip(numbers, rows, strict=True))

        def mean_vector(group: list[int]) -> np.ndarray:
            vector = np.mean([vectors[n] for n in group], axis=0)
            return vector / max(float(np.linalg.norm(vector)), 1e-12)

        return [float(1.0 - mean_vector(tail) @ mean_vector(head)) for tail, head in ends]
    hists = {n: _histogram(image) for n, image in images.items()}

    def mean_hist(group: list[int]) -> np.ndarray:
        return np.mean([hists[n] for n in group], axis=0)

    return [float(0.5 * np.abs(mean_hist(tail) - mean_hist(head)).sum()) for tail, head in ends]


def merge_shots(
    path: str | Path,
    shots: Sequence[Shot],
    *,
    distance: float | None = None,
    embedder: ImageEmbedder | None = None,
    probe_s: float = 0.5,
) -> list[Shot]:
    """Join consecutive shots whose boundary distance (`shot_distances`) is under `distance`
    (default HISTOGRAM_MERGE_DISTANCE or EMBEDDING_MERGE_DISTANCE); returns renumbered shots.

    Each boundary is judged on its own two sides, so a slow drift through many similar shots
    merges into one scene, as a viewer would see it."""
    if distance is None:
        distance = EMBEDDING_MERGE_DISTANCE if embedder is not None else HISTOGRAM_MERGE_DISTANCE
    gaps = shot_distances(path, shots, embedder=embedder, probe_s=probe_s)
    merged: list[Shot] = list(shots[:1])
    for shot, gap in zip(shots[1:], gaps, strict=True):
        if gap < distance:
            merged[-1] = replace(merged[-1], end_s=shot.end_s, end_frame=shot.end_frame)
        else:
            merged.append(shot)
    return [replace(shot, index=i) for i, shot in enumerate(merged)]
