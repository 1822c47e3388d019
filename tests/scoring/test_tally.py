"""Results counted one row at a time: the same numbers as from all the rows at once, in state
bounded by the groups and videos (correct answers and questions by video, the per-cluster
counts every interval takes)."""

from __future__ import annotations

import random

from vqakit.schema import Sample
from vqakit.scoring import ClusterForest, ResultsTally, accuracy_summary, summarise, video_clusters


def _sample(i: int, rng: random.Random) -> Sample:
    videos = [{"path": f"v{rng.randrange(12)}.mp4"} for _ in range(rng.choice((0, 1, 1, 1, 2)))]
    clips = [f"clip{rng.randrange(6)}"] if not videos and rng.random() < 0.6 else []
    mcq = i % 4 != 0
    return Sample(
        id=f"s{i:03d}",
        question="?",
        videos=videos,
        gold_clips=clips,
        choices=["a", "b", "c"] if mcq else None,
        answer=i % 3 if mcq else "text",
        metadata={"category": f"c{i % 3}", "skills": ["x", "y"] if i % 5 else []},
    )


def _row(sample: Sample, i: int, rng: random.Random) -> dict:
    row = {"sample_id": sample.id, "mcq": sample.is_mcq}
    if i % 11 == 0:
        return {**row, "correct": None, "status": "error: server", "error": "server"}
    if i % 13 == 0:
        return {**row, "correct": None, "status": "unscored (open-ended needs a judge)"}
    correct = rng.random() < 0.6
    extra = {"chosen": "ABC"[i % 3], "gold": "ABC"[sample.answer]} if sample.is_mcq else {}
    return {**row, "correct": correct, "status": "answered" if sample.is_mcq else "judged", **extra}


def test_streamed_clusters_are_the_clusters_of_video_clusters():
    """Counts kept by the key a sample is counted under and added up by that key's root give
    the clusters `video_clusters` finds (shared videos, two-video questions, gold clips, none)."""
    rng = random.Random(3)
    samples = [_sample(i, rng) for i in range(400)]
    forest = ClusterForest()
    keys = {sample.id: forest.add(sample) for sample in samples}
    expected = video_clusters(samples)
    groups = {}
    for sample in samples:
        groups.setdefault(forest.root(keys[sample.id]), set()).add(sample.id)
    by_video = {}
    for sample_id, cluster in expected.items():
        by_video.setdefault(cluster, set()).add(sample_id)
    assert sorted(map(sorted, groups.values())) == sorted(map(sorted, by_video.values()))


def test_a_tally_gives_the_intervals_of_all_the_rows_at_once():
    """Each bucket's summary from counts equals `accuracy_summary` of its rows' values with their
    clusters (the same interval, drawn from the same clusters in the same order)."""
    rng = random.Random(7)
    samples = [_sample(i, rng) for i in range(600)]
    rows = [_row(sample, i, rng) for i, sample in enumerate(samples)]
    lengths = {s.id: ("short" if i % 2 else "long") for i, s in enumerate(samples)}
    order = {"video_length": ["short", "long"]}
    tally = ResultsTally(("category", "skills"), ("video_length",), order)
    for sample in samples:
        tally.forest.add(sample)
    for sample, row in zip(samples, rows, strict=True):
        tally.add(sample, row, {"video_length": lengths[sample.id]})
    counted = tally.results(samples, rows, min_group_size=2)
    assert counted == summarise(samples, rows, ("category", "skills"), {"video_length": lengths}, 2, order)
    clusters = video_clusters(samples)
    mcq = [row for row in rows if row["mcq"] and row["correct"] is not None]
    direct = accuracy_summary([float(r["correct"]) for r in mcq], [clusters[r["sample_id"]] for r in mcq])
    assert counted["mcq"] == direct and direct["interval"] != "bootstrap"  # clustered: videos are shared
    by_id = {s.id: s for s in samples}
    c1 = [row for row in mcq if by_id[row["sample_id"]].metadata.category == "c1"]
    assert counted["groups"]["category"]["c1"] == accuracy_summary(
        [float(r["correct"]) for r in c1], [clusters[r["sample_id"]] for r in c1]
    )
    assert list(counted["groups"]["video_length"]) == ["short", "long"]  # the given order
    assert counted["errors"]["n"] == counted["counts"]["error"]


def test_the_state_is_bounded_by_the_videos():
    """A million-question run over five videos keeps five clusters a bucket."""
    samples = [Sample(id=f"q{i}", question="?", videos=[{"path": f"v{i % 5}.mp4"}], choices=["a", "b"],
                      answer=0) for i in range(5000)]  # fmt: skip
    tally = ResultsTally(("category",))
    for i, sample in enumerate(samples):
        tally.add(sample, {"sample_id": sample.id, "mcq": True, "correct": i % 3 == 0, "status": "answered"})
    sums, counts = tally.mcq.cluster_counts(tally.forest)
    assert len(tally.mcq.by_key) == 5 and list(counts) == [1000.0] * 5 and sums.sum() == 1667
