"""Results counted one row at a time: the same numbers as from all the values at once, in state
bounded by the groups and videos (counts per video, the shape clustered intervals need)."""

from __future__ import annotations

import numpy as np
import pytest

from vqakit.schema import Sample
from vqakit.scoring import (
    Outcomes,
    ResultsTally,
    bootstrap_interval,
    cluster_of,
    count_bootstrap_interval,
    summarise,
    wilson_interval,
)
from vqakit.scoring._intervals import BINOMIAL_FROM, SMALL_GROUP


@pytest.mark.parametrize("n", [7, SMALL_GROUP, 500, BINOMIAL_FROM - 1, BINOMIAL_FROM, 60_000])
def test_counts_give_the_intervals_all_the_values_give(n):
    values = (np.random.default_rng(n).random(n) < 0.37).astype(float)
    outcomes = Outcomes.of(values.tolist(), [f"video{i % 13}" for i in range(n)])
    summary = outcomes.summary()
    # Wilson for small groups; the bootstrap by index below BINOMIAL_FROM, binomial from there
    expected = wilson_interval(values.sum(), n) if n < SMALL_GROUP else bootstrap_interval(values)
    assert summary["ci95"] == list(expected) and summary["accuracy"] == float(np.mean(values))
    assert (outcomes.values is None) == (n >= BINOMIAL_FROM)  # at most 20 kB of outcomes kept
    correct, total = outcomes.cluster_counts()
    assert len(total) == min(n, 13) and total.sum() == n and correct.sum() == values.sum()
    if n >= BINOMIAL_FROM:
        assert count_bootstrap_interval(int(values.sum()), n) == expected


def _sample(i: int) -> Sample:
    return Sample(
        id=f"s{i}",
        question="?",
        videos=[{"path": f"v{i % 3}.mp4"}] if i % 5 else [],
        choices=["a", "b", "c"] if i % 4 else None,
        answer=i % 3 if i % 4 else "text",
        metadata={"category": f"c{i % 2}", "skills": ["x", "y"] if i % 3 else []},
    )


def _row(sample: Sample, i: int) -> dict:
    row = {"sample_id": sample.id, "mcq": sample.is_mcq}
    if i % 11 == 0:
        return {**row, "correct": None, "status": "error: server", "error": "server"}
    if i % 13 == 0:
        return {**row, "correct": None, "status": "unscored (open-ended needs a judge)"}
    correct = i % 3 == 0
    extra = {"chosen": "ABC"[i % 3], "gold": "ABC"[sample.answer]} if sample.is_mcq else {}
    return {**row, "correct": correct, "status": "answered" if sample.is_mcq else "judged", **extra}


def test_a_tally_counts_what_summarise_gives_and_keeps_counts_by_video():
    samples = [_sample(i) for i in range(120)]
    rows = [_row(s, i) for i, s in enumerate(samples)]
    lengths = {s.id: ("short" if i % 2 else "long") for i, s in enumerate(samples)}
    tally = ResultsTally(("category", "skills"), ("video_length",), {"video_length": ["short", "long"]})
    for sample, row in zip(samples, rows, strict=True):
        tally.add(sample, row, {"video_length": lengths[sample.id]})
    counted = tally.results(samples, rows, min_group_size=2)
    order = {"video_length": ["short", "long"]}
    expected = summarise(samples, rows, ("category", "skills"), {"video_length": lengths}, 2, order)
    assert counted == expected
    assert list(counted["groups"]["video_length"]) == ["short", "long"]  # the given order
    assert counted["errors"]["n"] == 11 and counted["counts"]["error"] == 11
    videos = {cluster for cluster in tally.mcq.clusters if not cluster.startswith("sample:")}
    assert videos == {"v0.mp4", "v1.mp4", "v2.mp4"}  # a sample without a video is its own cluster
    assert all(not samples[int(c[8:])].videos for c in tally.mcq.clusters if c.startswith("sample:"))
    by_video = tally.buckets["groups"]["category"]["c1"].clusters
    assert sum(total for _, total in by_video.values()) == counted["groups"]["category"]["c1"]["n"]
    assert cluster_of(samples[1]) == "v1.mp4" and cluster_of(samples[5]) == "sample:s5"
