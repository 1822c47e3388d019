"""Describing shots by their ends, comparing them, and timing a recap shot inside a movie shot.

A shot is described by frames sampled at `fps` in its first and last `end_s` seconds, embedded
and averaged per end. Frames are decoded and embedded in chunks, so memory stays flat however
long the movie.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vqakit.video import ImageEmbedder, Resize, Shot, Timestamps, sample_frames

_CHUNK = 256  # frames decoded and embedded at once, so memory stays flat on a two-hour movie
_MAX_REFINE_FRAMES = 240


def _window_times(shot: Shot, end_s: float, fps: float) -> tuple[list[float], list[float]]:
    """Sample times in a shot's first and last `end_s` seconds (at least one each)."""
    span = min(end_s, shot.duration_s)
    count = max(1, int(span * fps))
    step = span / count
    head = [shot.start_s + (k + 0.5) * step for k in range(count)]
    tail = [shot.end_s - (k + 0.5) * step for k in reversed(range(count))]
    return head, tail


def _embed_times(path: Path, times: list[float], embedder: ImageEmbedder, short_side: int) -> np.ndarray:
    rows = []
    for start in range(0, len(times), _CHUNK):
        chunk = tuple(times[start : start + _CHUNK])
        frames = sample_frames(path, Timestamps(chunk), resize=Resize(short_side=short_side))
        rows.append(np.asarray(embedder.embed_images([f.image for f in frames]), dtype=np.float32))
    vectors = np.concatenate(rows) if rows else np.zeros((0, 1), np.float32)
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


class ShotFrames:
    """Embedded head/tail frames of every shot of one video, plus whole-shot frames on demand."""

    def __init__(
        self,
        path: Path,
        shots: list[Shot],
        embedder: ImageEmbedder,
        *,
        end_s: float,
        fps: float,
        short_side: int,
    ) -> None:
        self.path, self.shots, self.embedder = path, shots, embedder
        self.fps, self.short_side = fps, short_side
        windows = [_window_times(shot, end_s, fps) for shot in shots]
        times = [t for head, tail in windows for t in (*head, *tail)]
        vectors = _embed_times(path, times, embedder, short_side)
        self.frames: list[tuple[np.ndarray, np.ndarray]] = []  # per shot: (times, vectors) of both ends
        self.ends = np.zeros((len(shots), 2, vectors.shape[1]), np.float32)
        position = 0
        for i, (head, tail) in enumerate(windows):
            head_v = vectors[position : position + len(head)]
            tail_v = vectors[position + len(head) : position + len(head) + len(tail)]
            position += len(head) + len(tail)
            self.frames.append((np.array([*head, *tail]), np.concatenate([head_v, tail_v])))
            self.ends[i] = [head_v.mean(axis=0), tail_v.mean(axis=0)]
        self.ends /= np.maximum(np.linalg.norm(self.ends, axis=2, keepdims=True), 1e-12)
        self._whole: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def whole(self, wanted: list[int]) -> None:
        """Embed frames along the whole of each wanted shot (at `fps`, at most 240 per shot)."""
        missing = [i for i in dict.fromkeys(wanted) if i not in self._whole]
        spans: list[list[float]] = []
        for i in missing:
            shot = self.shots[i]
            count = int(min(max(1, shot.duration_s * self.fps), _MAX_REFINE_FRAMES))
            spans.append([shot.start_s + (k + 0.5) * shot.duration_s / count for k in range(count)])
        vectors = _embed_times(self.path, [t for span in spans for t in span], self.embedder, self.short_side)
        position = 0
        for i, span in zip(missing, spans, strict=True):
            self._whole[i] = (np.array(span), vectors[position : position + len(span)])
            position += len(span)

    def whole_frames(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        return self._whole[i]


def similarities(recap_ends: np.ndarray, movie_ends: np.ndarray) -> np.ndarray:
    """(recap shots x movie shots): per recap end the best cosine over the movie shot's two ends,
    averaged over the recap shot's two ends."""
    cos = np.einsum("red,mfd->remf", recap_ends, movie_ends)
    return cos.max(axis=3).mean(axis=1)


def softmax(scores: np.ndarray, temperature: float) -> np.ndarray:
    """Row-wise softmax of scores / temperature.

    The temperature should be about the cosine gap between a true match and an ordinary shot of
    the same film: a movie has thousands of shots, and at 0.05 a gap of 0.2 still leaves each
    ordinary shot e^-4 of the best one's weight, so 1,500 of them flatten every probability; at
    the default 0.02 they weigh e^-10 each and only true look-alikes compete.
    """
    z = scores / temperature
    z = np.exp(z - z.max(axis=1, keepdims=True))
    return z / z.sum(axis=1, keepdims=True)


RATES = 2.0 ** (np.arange(-6, 11) / 6)  # 0.5x to 3.2x in sixths of an octave
"""Speeds tried when timing a recap shot inside its movie shot (recaps speed footage up)."""


def time_match(recap: ShotFrames, r: int, movie: ShotFrames, m: int) -> tuple[float, float, float]:
    """Movie start, end and rate of recap shot `r` inside movie shot `m`.

    Template matching: for every speed in RATES and every start on a grid of half the sampling
    step, the recap shot's sampled frames are laid onto the movie shot's frames and their
    similarities averaged (a frame that falls outside the shot scores the worst similarity seen).
    The best placement wins; near-ties (static footage) go to the speed closest to 1x, then the
    earliest start. The span is clipped to the movie shot, so a recap shot longer than it shows
    up as a low rate that the plausibility check drops.
    """
    shot, target = recap.shots[r], movie.shots[m]
    times, vectors = recap.frames[r]
    movie_times, movie_vectors = movie.whole_frames(m)
    scores = vectors @ movie_vectors.T  # (recap frames, movie frames)
    step = movie_times[1] - movie_times[0] if movie_times.size > 1 else max(target.duration_s, 1e-3)
    offsets = times - shot.start_s
    starts = np.arange(target.start_s - 0.5 * step, target.end_s, 0.5 * step)
    placed = starts[None, :, None] + RATES[:, None, None] * offsets[None, None, :]  # (rate, start, frame)
    k = np.rint((placed - movie_times[0]) / step).astype(np.int64)
    inside = (k >= 0) & (k < movie_times.size)
    values = np.where(
        inside,
        scores[np.arange(offsets.size)[None, None, :], np.clip(k, 0, movie_times.size - 1)],
        scores.min(),
    )
    fit = values.mean(axis=2) - 1e-3 * np.abs(np.log2(RATES))[:, None]
    rate_at, start_at = np.unravel_index(int(np.argmax(fit)), fit.shape)
    rate = float(RATES[rate_at])
    start = float(np.clip(starts[start_at], target.start_s, target.end_s))
    end = float(np.clip(starts[start_at] + rate * shot.duration_s, start, target.end_s))
    return start, end, (end - start) / max(shot.duration_s, 1e-6)
