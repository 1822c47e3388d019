from __future__ import annotations

import numpy as np
import pytest

from vqakit.schema import Fps, Timestamps, Uniform, parse_sampling, sample_times
from vqakit.video import fixed_windows


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("uniform:64", Uniform(64)),
        ("uniform:8@10-40", Uniform(8, 10.0, 40.0)),
        ("fps:2", Fps(2.0)),
        ("fps:1,max=64", Fps(1.0, 64)),
        ("fps:0.5,max=3@5-20", Fps(0.5, 3, 5.0, 20.0)),
        ("at:1.5,3,12.25", Timestamps((1.5, 3.0, 12.25))),
    ],
)
def test_parse(text, spec):
    assert parse_sampling(text) == spec


@pytest.mark.parametrize("text", ["uniform", "uniform:-1", "fps:0", "at:", "every:3", "uniform:4@5"])
def test_parse_rejects(text):
    with pytest.raises(ValueError):
        parse_sampling(text)


def test_times():
    np.testing.assert_allclose(sample_times(Uniform(4), 8.0), [1, 3, 5, 7])
    np.testing.assert_allclose(sample_times(Uniform(1, 2.0, 4.0), 8.0), [3.0])
    assert sample_times(Uniform(0), 8.0).size == 0
    np.testing.assert_allclose(sample_times(Fps(1.0), 3.5), [0, 1, 2, 3])
    np.testing.assert_allclose(sample_times(Fps(1.0, max_frames=2), 8.0), [2, 6])
    np.testing.assert_allclose(sample_times(Fps(1.0, end_s=100.0), 2.5), [0, 1, 2])  # end clipped
    with pytest.raises(ValueError, match="empty or outside"):
        sample_times(Uniform(2, 9.0, 12.0), 8.0)


def test_fixed_windows():
    assert fixed_windows(65.0, 30.0) == [(0.0, 30.0), (30.0, 60.0), (60.0, 65.0)]
    assert fixed_windows(65.0, 30.0, min_last_s=30.0) == [(0.0, 30.0), (30.0, 60.0)]
    assert fixed_windows(60.0, 30.0) == [(0.0, 30.0), (30.0, 60.0)]
    with pytest.raises(ValueError):
        fixed_windows(10.0, 0.0)
