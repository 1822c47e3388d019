"""Finding the part of a clip that a text is about, from per-frame similarities.

Frames are sampled at `fps` from the clip's start: frame i stands for [i/fps, (i+1)/fps), so a
window of w frames starting at frame i covers [i/fps, (i+w)/fps) and the clip lasts n/fps.
Times returned here are seconds from the clip's start.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

Position = Literal["before", "after", "within"]
POSITIONS: tuple[str, ...] = ("before", "after", "within")


def window_frames(fps: float, window_s: float) -> int:
    """How many frames a window of `window_s` seconds holds at `fps` (at least one)."""
    return max(1, round(window_s * fps))


def best_window(
    similarities: Sequence[float] | np.ndarray,
    fps: float,
    window_s: float,
    position: Position = "within",
    shift_s: float = 1.0,
) -> tuple[float, float]:
    """The `window_s` window with the highest mean similarity, as (start_s, end_s).

    The search is one pass over a running sum (linear in the number of frames); among equal
    means the earliest window wins. For `before`/`after` cues the window is then moved
    `shift_s` earlier/later, staying inside the clip. A clip shorter than the window comes back
    whole.
    """
    scores = np.asarray(similarities, dtype=np.float64).reshape(-1)
    if scores.size == 0:
        raise ValueError("best_window needs at least one frame similarity")
    if not fps > 0 or not window_s > 0:
        raise ValueError(f"fps and window_s must be positive, got fps={fps}, window_s={window_s}")
    if position not in POSITIONS:
        raise ValueError(f"position must be one of {', '.join(POSITIONS)}, got {position!r}")
    if shift_s < 0:
        raise ValueError(f"shift_s must be >= 0, got {shift_s}")
    duration = scores.size / fps
    width = window_frames(fps, window_s)
    if width >= scores.size:
        return 0.0, duration
    running = np.concatenate(([0.0], np.cumsum(scores)))
    sums = running[width:] - running[:-width]  # sums[i]: frames i .. i+width-1
    # earliest window whose mean equals the best up to float noise of the running sum
    tolerance = 1e-9 * max(1.0, float(np.abs(running).max()))
    first = int(np.flatnonzero(sums >= sums.max() - tolerance)[0])
    start = first / fps
    length = width / fps
    if position == "before":
        start -= shift_s
    elif position == "after":
        start += shift_s
    start = min(max(start, 0.0), duration - length)
    return start, start + length


def fixed_pieces(frame_count: int, fps: float, piece_s: float) -> list[tuple[int, int]]:
    """Non-overlapping pieces of `piece_s` seconds as [first, last+1) frame ranges; the last piece
    may be shorter (the Video Split baseline's retrieval units)."""
    width = window_frames(fps, piece_s)
    return [(start, min(start + width, frame_count)) for start in range(0, frame_count, width)]


def best_piece(similarities: Sequence[float] | np.ndarray, fps: float, piece_s: float) -> tuple[float, float]:
    """The fixed piece with the highest mean similarity, as (start_s, end_s) from the clip's start."""
    scores = np.asarray(similarities, dtype=np.float64).reshape(-1)
    if scores.size == 0:
        raise ValueError("best_piece needs at least one frame similarity")
    pieces = fixed_pieces(scores.size, fps, piece_s)
    means = [scores[a:b].mean() for a, b in pieces]
    a, b = pieces[int(np.argmax(means))]
    return a / fps, b / fps
