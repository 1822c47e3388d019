"""Cutting a video's timeline into fixed-length windows."""

from __future__ import annotations


def fixed_windows(
    duration_s: float, window_s: float, *, min_last_s: float = 0.0
) -> list[tuple[float, float]]:
    """Consecutive [start, end) windows of `window_s` covering [0, duration_s).

    The last window is shorter when the duration is not a multiple; it is dropped when shorter
    than `min_last_s` (EgoFact cuts 30 s windows and keeps only full ones: `min_last_s=30`).
    """
    if window_s <= 0:
        raise ValueError(f"window length must be positive, got {window_s}")
    windows = []
    start = 0.0
    while start < duration_s - 1e-9:
        end = min(start + window_s, duration_s)
        if end - start >= min_last_s - 1e-9:
            windows.append((start, end))
        start += window_s
    return windows
