"""Exactness: every sampler returns the frame whose presentation interval holds the time asked.

The clips draw their own frame index into each frame, so the check is on decoded pixels, not
on what the decoder claims.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from vqakit.schema import Fps, Timestamps, Uniform
from vqakit.video import Resize, decode_frames, frame_index, read_frame_index, sample_frames


def expected_frame(time_s: float, fps: Fraction) -> int:
    return math.floor(Fraction(time_s).limit_denominator(10**9) * fps)


def assert_exact(frames, times, fps) -> None:
    for frame, time_s in zip(frames, times, strict=True):
        shown = read_frame_index(frame.image)
        assert shown == frame.frame_number, f"claims frame {frame.frame_number}, shows {shown}"
        assert shown == expected_frame(time_s, fps), f"t={time_s}: got frame {shown}"
        assert frame.time_s <= time_s + 1e-9 < frame.time_s + float(1 / fps) + 1e-9


def test_index_matches_clip(index_clip):
    index = frame_index(index_clip)
    assert index.frame_count == 500
    assert index.keyframe_count == 10
    assert index.duration_s == pytest.approx(20.0)
    np.testing.assert_allclose(index.times_s, np.arange(500) / 25)
    assert 0.3 < index.decode_disposable.mean() < 0.7  # libx264 B-frames are mostly non-reference


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_random_times_are_exact(index_clip, workers):
    rng = np.random.default_rng(workers)
    times = rng.uniform(0, 20, size=40)
    frames = sample_frames(index_clip, Timestamps(tuple(times)), workers=workers)
    assert_exact(frames, times, Fraction(25))


def test_interval_boundaries(index_clip):
    """A time exactly on a frame's start belongs to that frame; just before, to the previous."""
    times = [0.0, 0.04, 0.04 - 1e-6, 1.96, 2.0, 2.0 - 1e-6, 19.96, 19.999]
    frames = sample_frames(index_clip, Timestamps(tuple(times)))
    assert [f.frame_number for f in frames] == [0, 1, 0, 49, 50, 49, 499, 499]
    assert_exact(frames, times, Fraction(25))


def test_ntsc_rate_is_exact(ntsc_clip):
    fps = Fraction(30000, 1001)
    times = [k / fps + Fraction(1, 1000) for k in (0, 1, 29, 30, 31, 150, 298)]
    frames = sample_frames(ntsc_clip, Timestamps(tuple(float(t) for t in times)))
    assert [f.frame_number for f in frames] == [0, 1, 29, 30, 31, 150, 298]
    assert_exact(frames, [float(t) for t in times], fps)


def test_uniform_whole_video_and_window(index_clip):
    frames = sample_frames(index_clip, Uniform(8))
    assert [f.frame_number for f in frames] == [31, 93, 156, 218, 281, 343, 406, 468]
    assert_exact(frames, [(i + 0.5) * 20 / 8 for i in range(8)], Fraction(25))
    window = sample_frames(index_clip, Uniform(4, 10.0, 12.0))
    assert [f.frame_number for f in window] == [256, 268, 281, 293]


def test_fps_with_cap(index_clip):
    frames = sample_frames(index_clip, Fps(2.0, start_s=3.0, end_s=6.0))
    # 3.5 s falls inside frame 87, which starts at 3.48 s
    assert [f.time_s for f in frames] == pytest.approx([3.0, 3.48, 4.0, 4.48, 5.0, 5.48])
    capped = sample_frames(index_clip, Fps(25.0, max_frames=5))
    assert [f.frame_number for f in capped] == [50, 150, 250, 350, 450]


def test_unordered_and_repeated_times(index_clip):
    times = (15.0, 1.0, 15.0, 0.5, 19.9, 1.0)
    frames = sample_frames(index_clip, Timestamps(times))
    assert [f.frame_number for f in frames] == [375, 25, 375, 12, 497, 25]
    assert_exact(frames, times, Fraction(25))


def test_without_skipping_disposable_frames_gives_same_pixels(index_clip):
    index = frame_index(index_clip)
    numbers = np.array([3, 7, 52, 53, 54, 250, 499])
    fast = decode_frames(index, numbers, workers=1)
    plain = decode_frames(index, numbers, workers=1, skip_disposable=False, frame_threads=False)
    for a, b in zip(fast, plain, strict=True):
        np.testing.assert_array_equal(a.image, b.image)


def test_keyframe_mode_returns_preceding_keyframe_with_true_time(index_clip):
    times = (0.5, 2.1, 3.99, 19.0)
    frames = sample_frames(index_clip, Timestamps(times), exact=False)
    assert [f.frame_number for f in frames] == [0, 50, 50, 450]
    for frame in frames:
        assert read_frame_index(frame.image) == frame.frame_number
        assert frame.time_s == pytest.approx(frame.frame_number / 25)


def test_resize_short_side_and_max_pixels(index_clip):
    small = sample_frames(index_clip, Uniform(2), resize=Resize(short_side=120))
    assert small[0].image.shape == (120, 160, 3)
    budget = sample_frames(index_clip, Uniform(1), resize=Resize(max_pixels=160 * 120))
    height, width, _ = budget[0].image.shape
    assert height * width <= 160 * 120 and width / height == pytest.approx(4 / 3, rel=0.02)
    assert read_frame_index(small[1].image, encoded_width=320) == small[1].frame_number


def test_zero_frames_requested(index_clip):
    assert sample_frames(index_clip, Uniform(0)) == []


def test_times_outside_the_video_are_errors(index_clip):
    from vqakit.video import VideoError

    with pytest.raises(VideoError, match=r"index\.mp4: time 20\.000s is outside"):
        sample_frames(index_clip, Timestamps((20.0,)))
    with pytest.raises(VideoError, match="window"):
        sample_frames(index_clip, Uniform(4, 12.0, 11.0))
