"""The shipped `sample` benchmark: its promised content, and its synthetic ground truth."""

from __future__ import annotations

import numpy as np
import pytest

from vqakit.benchmarks import check_benchmark, load_benchmark
from vqakit.schema import Timestamps, find_objects, find_times
from vqakit.video import sample_frames


@pytest.fixture(scope="module")
def sample():
    return load_benchmark("sample")


def test_valid_with_media():
    benchmark, problems = check_benchmark("sample", media=True)
    assert problems == [] and benchmark is not None


def test_promised_content(sample):
    samples = sample.samples
    assert len(samples) >= 40
    assert len({s.id for s in samples}) == len(samples)
    option_counts = {len(s.choices) for s in samples if s.choices}
    assert {5, 6} <= option_counts
    assert sum(1 for s in samples if not s.is_mcq) >= 8
    assert sum(1 for s in samples if s.metadata.grounding == "temporal") >= 6
    two_hop = [s for s in samples if s.metadata.hop == 2]
    assert len(two_hop) >= 5
    for s in two_hop:
        assert s.gold_passages and all(p in sample.passages for p in s.gold_passages)
        pairs = s.metadata.model_extra["pairs"]
        assert sorted(i for p in pairs for i in (p["counterfactual"], p["factual"])) == list(range(6))
        right = [p for p in pairs if p["passage"] in s.gold_passages]
        assert len(right) == 1 and right[0]["factual"] == s.answer
    traced = [s for s in samples if s.reasoning and s.objects]
    assert len(traced) >= 5
    for s in traced:
        assert find_times(s.reasoning), s.id
        named = {ref.id for ref in find_objects(s.reasoning)}
        assert named and named <= {track.id for track in s.objects}, s.id
    assert any(s.subtitles for s in samples)
    assert all(s.metadata.category and s.metadata.skills for s in samples)


COLOURS = {
    "circle": (220, 40, 40),
    "square": (40, 80, 220),
    "bar": (240, 210, 40),
    "dot": (40, 180, 70),
    "car": (245, 245, 245),
}


def test_synthetic_tracks_match_the_pixels(sample):
    """Inside every track box the object's colour dominates; a box shifted well away has none."""
    checked = 0
    for s in sample.samples:
        for track in s.objects:
            path = sample.root / s.videos[track.video].path
            times = tuple(point.time_s for point in track.points)
            frames = sample_frames(path, Timestamps(times))
            colour = np.array(COLOURS[track.label])
            for frame, point in zip(frames, track.points, strict=True):
                x0, y0, x1, y1 = (int(v) for v in point.box)
                inner = frame.image[y0 + 4 : y1 - 4, x0 + 4 : x1 - 4].reshape(-1, 3).astype(int)
                share = (np.abs(inner - colour).sum(axis=1) < 60).mean()
                assert share > 0.8, (s.id, track.id, point.time_s, share)
                checked += 1
    assert checked >= 20
