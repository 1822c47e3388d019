"""Synthetic recaps of a synthetic movie, with the true recap-to-movie mapping.

The "movie" strings pieces of the sample media together (an animated film, street footage with
cuts, a campus camera, a rotating Earth, rendered scenes, a title card), 192x108 at 25 fps. The
"recap" re-cuts excerpts of it the way recap channels do: a teaser from later first, two
passages swapped, a flashback near the end, some excerpts sped up 1.5-2x by dropping frames,
all re-encoded smaller (160x90) at a lower quality (CRF 30). Also here: `ThumbnailEmbedder`, a
deterministic test embedder, and `score_alignment`, the time-error measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np
from PIL import Image

from vqakit.video import Resize, Timestamps, frame_index, sample_frames

MEDIA = Path(__file__).resolve().parents[3] / "src/vqakit/benchmarks/sample/media"
FPS = 25
MOVIE_PIECES = [  # (file under MEDIA, seconds taken from its start)
    ("bigbuckbunny.mp4", 5.2),
    ("bikes.mp4", 10.0),
    ("synthetic/workbench.mp4", 12.0),
    ("world.mp4", 12.0),
    ("synthetic/crossing.mp4", 9.0),
    ("pedestrians.mp4", 16.0),
    ("synthetic/counting.mp4", 10.0),
    ("thanks.mp4", 6.8),
]
# (movie start s, movie seconds, speed) in recap order; the movie starts of the pieces above are
# 0, 5.2, 15.2, 27.2, 39.2, 48.2, 64.2, 74.2 (end 81.0)
RECAP_EXCERPTS = [
    (52.0, 3.0, 1.0),  # teaser: the campus, moved to the front
    (0.4, 4.4, 1.0),  # the film
    (8.6, 4.0, 2.0),  # street footage across a cut, twice as fast
    (17.0, 6.0, 1.5),  # workbench, 1.5x
    (40.0, 4.0, 1.0),  # crossing, swapped with ...
    (30.0, 4.0, 1.0),  # ... the Earth
    (56.0, 6.0, 2.0),  # campus again, 2x
    (65.5, 5.0, 1.0),  # counting
    (11.4, 3.2, 1.0),  # flashback to the street (across a cut)
    (75.0, 5.5, 1.0),  # title card
]


@dataclass(frozen=True)
class Excerpt:
    recap_start_s: float
    recap_end_s: float
    movie_start_s: float
    movie_end_s: float
    speed: float

    def movie_time(self, recap_s: float) -> float:
        return self.movie_start_s + self.speed * (recap_s - self.recap_start_s)


def _encode(path: Path, frames: Sequence[np.ndarray], crf: int) -> None:
    height, width = frames[0].shape[:2]
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": str(crf), "preset": "veryfast"}
        for image in frames:
            for packet in stream.encode(
                av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
            ):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def _resized(images: list[np.ndarray], size: tuple[int, int]) -> list[np.ndarray]:
    return [np.asarray(Image.fromarray(image).resize(size, Image.BILINEAR)) for image in images]


def write_movie(path: Path, *, size: tuple[int, int] = (192, 108)) -> Path:
    """The synthetic movie (81 s); each piece resampled to 25 fps and stretched to `size`."""
    frames: list[np.ndarray] = []
    for name, seconds in MOVIE_PIECES:
        times = tuple(k / FPS for k in range(round(seconds * FPS)))
        decoded = sample_frames(MEDIA / name, Timestamps(times), resize=Resize(short_side=size[1]))
        frames += _resized([f.image for f in decoded], size)
    _encode(path, frames, crf=20)
    return path


def write_recap(
    movie: Path, path: Path, *, size: tuple[int, int] = (160, 90), crf: int = 30
) -> list[Excerpt]:
    """The synthetic recap of `movie` and its true mapping, one Excerpt per re-cut piece."""
    duration = frame_index(movie).duration_s
    frames: list[np.ndarray] = []
    truth = []
    for start, seconds, speed in RECAP_EXCERPTS:
        count = round(seconds / speed * FPS)
        times = tuple(min(start + speed * k / FPS, duration - 1e-3) for k in range(count))
        recap_start = len(frames) / FPS
        frames += _resized([f.image for f in sample_frames(movie, Timestamps(times))], size)
        truth.append(Excerpt(recap_start, len(frames) / FPS, start, start + speed * count / FPS, speed))
    _encode(path, frames, crf=crf)
    return truth


class ThumbnailEmbedder:
    """A deterministic image embedder for tests: a 12x8 colour thumbnail (box filter, so it
    shrugs off re-encoding and resizing) minus its mean grey. No model, no weights."""

    def __init__(self, size: tuple[int, int] = (12, 8)) -> None:
        self.size = size

    def embed_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        rows = []
        for image in images:
            thumb = np.asarray(Image.fromarray(np.asarray(image)).resize(self.size, Image.BOX), np.float32)
            rows.append((thumb - thumb.mean()).ravel())
        vectors = np.stack(rows)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-6)


def _true_time(truth: Sequence[Excerpt], recap_s: float) -> float:
    for excerpt in truth:
        if excerpt.recap_start_s <= recap_s < excerpt.recap_end_s:
            return excerpt.movie_time(recap_s)
    return truth[-1].movie_time(recap_s)


def score_alignment(
    segments: Sequence[dict], truth: Sequence[Excerpt], *, within_s: float = 2.0
) -> dict[str, float]:
    """Time error of aligned segments against the true mapping.

    - `mae_s`: mean absolute error of the segments' movie start and end times (each end against
      the true movie time of the segment's recap start and end);
    - `within`: share of segments whose two ends are both within `within_s` seconds;
    - `dense_mae_s`: mean error at every 0.2 s of recap time inside segments, with movie time
      interpolated linearly across each segment;
    - `coverage`: share of the recap's duration that lies inside some segment.
    """
    errors, good, dense, covered = [], 0, [], 0.0
    for segment in segments:
        r0, r1 = segment["recap_start_time"], segment["recap_end_time"]
        m0, m1 = segment["movie_start_time"], segment["movie_end_time"]
        ends = [abs(m0 - _true_time(truth, r0)), abs(m1 - _true_time(truth, r1 - 1e-3))]
        errors += ends
        good += max(ends) <= within_s
        covered += r1 - r0
        for t in np.arange(r0, r1, 0.2):
            guess = m0 + (m1 - m0) * (t - r0) / max(r1 - r0, 1e-6)
            dense.append(abs(guess - _true_time(truth, float(t))))
    total = truth[-1].recap_end_s
    return {
        "segments": float(len(segments)),
        "mae_s": float(np.mean(errors)) if errors else float("nan"),
        "within": good / len(segments) if segments else 0.0,
        "dense_mae_s": float(np.mean(dense)) if dense else float("nan"),
        "coverage": covered / total,
    }


def truth_spans(truth: Sequence[Excerpt]) -> list[tuple[float, float, float, float]]:
    """(recap start, recap end, movie start, movie end) of each excerpt, for the plot."""
    return [(e.recap_start_s, e.recap_end_s, e.movie_start_s, e.movie_end_s) for e in truth]
