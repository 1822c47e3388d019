"""best_window: the linear-time search against brute force, and its edge cases."""

from __future__ import annotations

import numpy as np
import pytest

from vqakit.retrieval import best_piece, best_window, fixed_pieces, window_frames


def brute_force(scores: np.ndarray, fps: float, window_s: float, position: str, shift_s: float):
    """Every start tried, means computed directly; the earliest best start wins (windows whose means
    differ by float noise only count as equal)."""
    width = window_frames(fps, window_s)
    duration = len(scores) / fps
    if width >= len(scores):
        return 0.0, duration, None
    means = [float(np.mean(scores[i : i + width])) for i in range(len(scores) - width + 1)]
    best = max(means)
    first = next(i for i, m in enumerate(means) if m >= best - 1e-9)
    start = first / fps + {"before": -shift_s, "after": shift_s, "within": 0.0}[position]
    start = min(max(start, 0.0), duration - width / fps)
    return start, start + width / fps, sorted(best - m for m in means)


def test_matches_brute_force_on_random_similarities():
    rng = np.random.default_rng(7)
    checked = 0
    for _ in range(600):
        n = int(rng.integers(1, 90))
        fps = float(rng.choice([1.0, 2.0, 4.0, 2.5]))
        window_s = float(rng.choice([0.5, 1.0, 3.0, 5.0, 10.0, 30.0]))
        position = str(rng.choice(["before", "after", "within"]))
        shift_s = float(rng.choice([0.0, 0.5, 1.0, 3.0]))
        scores = rng.normal(0.2, 0.05, size=n)
        if rng.random() < 0.3:  # plateaus: ties broken by the earliest window
            scores = np.round(scores, 1)
        got = best_window(scores, fps, window_s, position, shift_s)
        start, end, ranked = brute_force(scores, fps, window_s, position, shift_s)
        if ranked is not None and any(1e-10 < gap < 1e-7 for gap in ranked):
            continue  # a runner-up too close to call either way
        assert got == pytest.approx((start, end), abs=1e-9), (n, fps, window_s, position, shift_s)
        checked += 1
    assert checked > 550


def test_window_length_and_bounds_hold_for_every_position():
    rng = np.random.default_rng(1)
    for n in (10, 11, 60, 61):
        scores = rng.random(n)
        for position in ("before", "after", "within"):
            start, end = best_window(scores, 2.0, 5.0, position, 1.0)
            assert end - start == pytest.approx(5.0)
            assert start >= 0.0 and end <= n / 2.0 + 1e-12


def test_finds_a_planted_event_and_shifts_around_it():
    scores = np.zeros(60)  # 30 s at 2 fps
    scores[24:34] = 1.0  # the event: 12 s to 17 s
    assert best_window(scores, 2.0, 5.0, "within") == (12.0, 17.0)
    assert best_window(scores, 2.0, 5.0, "before", 1.0) == (11.0, 16.0)
    assert best_window(scores, 2.0, 5.0, "after", 1.0) == (13.0, 18.0)


def test_clip_shorter_than_the_window_comes_back_whole():
    assert best_window([0.1, 0.9, 0.3], 2.0, 5.0, "after", 1.0) == (0.0, 1.5)
    assert best_window([0.5], 2.0, 5.0) == (0.0, 0.5)
    assert best_window(np.ones(10), 2.0, 5.0, "before") == (0.0, 5.0)  # exactly one window


def test_shifts_stop_at_the_clip_ends():
    scores = np.zeros(60)
    scores[:10] = 1.0  # best window at the very start
    assert best_window(scores, 2.0, 5.0, "before", 1.0) == (0.0, 5.0)
    scores = np.zeros(60)
    scores[-10:] = 1.0  # best window at the very end
    assert best_window(scores, 2.0, 5.0, "after", 1.0) == (25.0, 30.0)
    assert best_window(scores, 2.0, 5.0, "after", 100.0) == (25.0, 30.0)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="at least one"):
        best_window([], 2.0, 5.0)
    with pytest.raises(ValueError, match="position"):
        best_window([1.0, 2.0], 2.0, 5.0, "during")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="positive"):
        best_window([1.0, 2.0], 0.0, 5.0)
    with pytest.raises(ValueError, match="shift_s"):
        best_window([1.0, 2.0], 2.0, 5.0, "before", -1.0)


def test_fixed_pieces_tile_the_clip_and_best_piece_picks_the_highest_mean():
    assert fixed_pieces(25, 2.0, 5.0) == [(0, 10), (10, 20), (20, 25)]
    scores = np.zeros(25)
    scores[21] = 1.0  # only the short last piece holds the event
    assert best_piece(scores, 2.0, 5.0) == (10.0, 12.5)
    # a sliding window can straddle two pieces; a fixed piece cannot
    scores = np.zeros(40)
    scores[8:12] = 1.0
    assert best_window(scores, 2.0, 5.0) == (1.0, 6.0)  # earliest window holding all of 4 s-6 s
    assert best_piece(scores, 2.0, 5.0) in ((0.0, 5.0), (5.0, 10.0))
