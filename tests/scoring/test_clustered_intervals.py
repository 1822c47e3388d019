"""Intervals and paired tests clustered by video: questions on one video are not independent.

The simulations draw answers whose correctness is strongly alike within a video (each video has
its own accuracy, drawn from a Beta distribution whose intraclass correlation is about 0.57), so
a per-question interval is far too narrow. They are seeded, with every draw made at once."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from vqakit.schema import Prediction, Sample
from vqakit.scoring import (
    accuracy_summary,
    binomial_bootstrap_interval,
    cluster_bootstrap_interval,
    cluster_counts,
    cluster_summary,
    clustered_mcnemar,
    clustered_standard_error,
    design_effect,
    headline_text,
    mcnemar_exact,
    mean_summary,
    pair_summary,
    paired_bootstrap,
    score_sample,
    summarise,
    video_clusters,
    wilson_interval,
)
from vqakit.scoring._intervals import BINOMIAL_FROM, CLUSTER_NORMAL_FROM, SMALL_GROUP
from vqakit.scoring._paired import EXACT_SIGN_FLIP_WORK

DRAWS = 1000
TRUE_ACCURACY = 0.6
ALIKE = (0.45, 0.3)  # Beta(a, b): mean 0.6, intraclass correlation 1 / (a + b + 1) = 0.57


def _coverage(intervals: list[tuple[float, float]], truth: float) -> float:
    return sum(low <= truth <= high for low, high in intervals) / len(intervals)


def test_the_clustered_interval_covers_the_true_accuracy_where_the_per_question_one_falls_short():
    rng = np.random.default_rng(2028)
    videos, per_video = 40, 6
    video_accuracy = rng.beta(*ALIKE, size=(DRAWS, videos))
    answers = rng.random((DRAWS, videos, per_video)) < video_accuracy[:, :, None]
    correct = answers.sum(axis=2)
    sizes = np.full(videos, per_video)
    clustered = [cluster_summary(correct[d], sizes) for d in range(DRAWS)]
    assert {s["interval"] for s in clustered} == {"cluster bootstrap"} and clustered[0]["clusters"] == videos
    # what vqakit reported before, on the first 250 draws (a bootstrap of 240 values each; enough
    # to tell about 68% from 95%)
    flat = answers.reshape(DRAWS, -1).astype(float)
    per_question = [accuracy_summary(flat[d].tolist()) for d in range(250)]
    assert {s["interval"] for s in per_question} == {"bootstrap"}
    covered = _coverage([s["ci95"] for s in clustered], TRUE_ACCURACY)
    naive = _coverage([s["ci95"] for s in per_question], TRUE_ACCURACY)
    assert 0.92 <= covered <= 0.975, (
        covered
    )  # about 95% (a percentile bootstrap of 40 clusters: a little under)
    assert naive < 0.8, naive  # far short: it counts 240 answers where there are about 40 videos' worth


def test_a_group_of_few_videos_gets_wilson_at_the_effective_sample_size():
    rng = np.random.default_rng(7)
    videos, per_video = 12, 10
    video_accuracy = rng.beta(*ALIKE, size=(DRAWS, videos))
    correct = rng.binomial(per_video, video_accuracy)
    sizes = np.full(videos, per_video)
    clustered = [cluster_summary(correct[d], sizes) for d in range(DRAWS)]
    assert {s["interval"] for s in clustered} == {"wilson (effective n)"}
    per_question = [wilson_interval(float(correct[d].sum()), videos * per_video) for d in range(DRAWS)]
    assert 0.92 <= _coverage([s["ci95"] for s in clustered], TRUE_ACCURACY) <= 0.99
    assert _coverage(per_question, TRUE_ACCURACY) < 0.75


def test_one_question_per_video_gives_the_per_question_numbers_of_before():
    rng = np.random.default_rng(1)
    for n in (7, SMALL_GROUP, 500, BINOMIAL_FROM):
        values = (rng.random(n) < 0.7).astype(float).tolist()
        before = accuracy_summary(values)
        assert before["interval"] == ("wilson" if n < SMALL_GROUP else "bootstrap")
        assert accuracy_summary(values, [f"video {i}" for i in range(n)]) == before
        assert cluster_summary(values, np.ones(n)) == before and "clusters" not in before
    a, b = (rng.random(300) < 0.5).astype(float), (rng.random(300) < 0.6).astype(float)
    paired = pair_summary(a, b, list(range(300)))
    assert paired == pair_summary(a, b) and "clusters" not in paired
    assert paired["ci95"] == list(paired_bootstrap(a, b))
    assert paired["mcnemar_p"] == mcnemar_exact(paired["a_only_correct"], paired["b_only_correct"])


@pytest.mark.slow  # importing lmms-eval's metrics takes seconds
def test_the_clustered_standard_error_is_lmms_evals_to_order_one_over_the_clusters():
    from lmms_eval.api.metrics import clustered_stderr  # the peers extra (installed in CI)

    rng = np.random.default_rng(3)
    for videos, per_video in ((5, 3), (40, 8), (300, 10)):
        clusters = np.repeat(np.arange(videos), per_video).tolist()
        values = (rng.random(videos * per_video) < np.repeat(rng.beta(*ALIKE, videos), per_video)).astype(
            float
        )
        ours = clustered_standard_error(*cluster_counts(values.tolist(), clusters))
        theirs = clustered_stderr(values.tolist(), clusters)
        # ours has the small-sample factor C/(C-1); theirs a per-question term over n(n-1)
        assert abs(ours - theirs) / theirs < 2 / videos, (videos, ours, theirs)
    single = (rng.random(50) < 0.5).astype(float)
    assert clustered_standard_error(single, np.ones(50)) == pytest.approx(
        clustered_stderr(single.tolist(), list(range(50)))
    )
    assert clustered_standard_error(single, np.ones(50)) == pytest.approx(single.std(ddof=1) / math.sqrt(50))


def test_many_videos_take_the_normal_interval_of_the_clustered_standard_error():
    rng = np.random.default_rng(5)
    videos = CLUSTER_NORMAL_FROM
    sizes = rng.integers(1, 6, size=videos)
    correct = rng.binomial(sizes, rng.beta(*ALIKE, size=videos))
    summary = cluster_summary(correct, sizes)
    assert summary["interval"] == "clustered standard error" and summary["clusters"] == videos
    low, high = cluster_bootstrap_interval(correct, sizes, resamples=400)
    width = high - low
    assert abs(summary["ci95"][0] - low) < 0.15 * width and abs(summary["ci95"][1] - high) < 0.15 * width


def test_design_effect_is_never_below_one_and_assumes_the_worst_when_every_answer_agrees():
    assert design_effect([3, 0, 2, 1], [3, 3, 3, 3]) > 1
    assert design_effect([1, 1, 1, 1], [2, 2, 2, 2]) == 1.0  # answers differ within videos, alike across
    assert design_effect([4, 2, 6], [4, 2, 6]) == pytest.approx((16 + 4 + 36) / 12)  # all right
    summary = cluster_summary([4, 2, 6], [4, 2, 6])
    assert summary["accuracy"] == 1.0 and summary["ci95"][0] < 0.8  # 3 videos are not 12 questions
    with pytest.raises(ValueError, match="at least one"):
        cluster_summary([0, 1], [0, 2])


def _sign_flip_by_enumeration(a_only: list[int], b_only: list[int]) -> float:
    d = [x - y for x, y in zip(a_only, b_only, strict=True)]
    observed = abs(sum(d))
    hits = sum(
        abs(sum(s * x for s, x in zip(signs, d, strict=True))) >= observed
        for signs in itertools.product((1, -1), repeat=len(d))
    )
    return hits / 2 ** len(d)


def test_the_clustered_mcnemar_test_is_the_exact_sign_flip_test_of_whole_videos():
    rng = np.random.default_rng(11)
    for _ in range(30):
        videos = int(rng.integers(2, 11))
        a_only, b_only = rng.integers(0, 4, videos).tolist(), rng.integers(0, 3, videos).tolist()
        expected = _sign_flip_by_enumeration(a_only, b_only) if sum(a_only) != sum(b_only) else 1.0
        assert clustered_mcnemar(a_only, b_only) == pytest.approx(expected, abs=1e-12), (a_only, b_only)
    # with at most one discordant pair per video it is the exact McNemar test
    assert clustered_mcnemar([1, 0, 1, 1, 0], [0, 1, 0, 0, 0]) == mcnemar_exact(3, 1)
    # beyond the exact computation: Durkalski's normal approximation, close to it
    videos = 4000
    a_only, b_only = rng.integers(0, 30, videos), rng.integers(0, 30, videos)
    a_only[:200] += 3
    assert videos * int(np.abs(a_only - b_only).sum()) > EXACT_SIGN_FLIP_WORK
    d = a_only - b_only
    assert clustered_mcnemar(a_only, b_only) == pytest.approx(
        math.erfc(abs(d.sum()) / math.sqrt(2 * float((d * d).sum())))
    )


def test_paired_tests_of_runs_that_differ_only_by_video_keep_their_size():
    """Under no difference between two runs, but with each video favouring one run (all of its
    discordant answers go one way), the per-question McNemar test rejects far more often than
    5%; the clustered test and the paired cluster bootstrap stay near 5%."""
    rng = np.random.default_rng(19)
    videos, per_video, draws = 30, 8, 400
    favoured = rng.choice([-0.35, 0.35], size=(draws, videos))
    a = rng.random((draws, videos, per_video)) < 0.5 + favoured[:, :, None]
    b = rng.random((draws, videos, per_video)) < 0.5 - favoured[:, :, None]
    clusters = np.repeat(np.arange(videos), per_video).tolist()
    rejected = per_question = missed = 0
    for d in range(draws):
        summary = pair_summary(a[d].ravel().astype(float), b[d].ravel().astype(float), clusters)
        rejected += summary["mcnemar_p"] < 0.05
        per_question += summary["mcnemar_per_question_p"] < 0.05
        missed += not summary["ci95"][0] <= 0.0 <= summary["ci95"][1]
    assert rejected / draws < 0.09 and missed / draws < 0.09, (rejected, missed)
    assert per_question / draws > 0.25, per_question


def test_samples_are_clustered_by_shared_video_window_or_gold_clip():
    def sample(sample_id: str, *paths: str, clips: tuple[str, ...] = ()) -> Sample:
        videos = [{"path": path, "start_s": 0.0, "end_s": 5.0} if "#" not in path else {"path": path[:-1]}
                  for path in paths]  # fmt: skip
        return Sample(id=sample_id, question="q", videos=videos, answer="x", gold_clips=list(clips))

    clusters = video_clusters(
        [
            sample("a", "v1.mp4"),
            sample("b", "v1.mp4#"),  # another window of the same file
            sample("c", "v2.mp4"),
            sample("d", "v3.mp4", "v2.mp4"),  # joins v2's and v3's questions
            sample("e", "v3.mp4"),
            sample("f", clips=("clip-1",)),
            sample("g", clips=("clip-1", "clip-2")),
            sample("h"),
        ]
    )
    groups: dict[str, set[str]] = {}
    for sample_id, cluster in clusters.items():
        groups.setdefault(cluster, set()).add(sample_id)
    assert sorted(map(sorted, groups.values())) == [["a", "b"], ["c", "d", "e"], ["f", "g"], ["h"]]
    assert all(cluster in members for cluster, members in groups.items())


def test_results_and_the_eval_line_say_the_interval_is_clustered():
    samples = [
        Sample(id=f"s{i}", question="q", videos=[{"path": f"v{i % 9}.mp4"}], choices=["a", "b"], answer=0)
        for i in range(45)
    ]
    rows = [
        score_sample(s, Prediction(sample_id=s.id, method="m", choice=i % 3 % 2))
        for i, s in enumerate(samples)
    ]
    results = summarise(samples, rows)
    assert results["mcq"]["interval"] == "wilson (effective n)" and results["mcq"]["clusters"] == 9
    entry = results["headline"][0]
    assert entry["interval"] == "wilson (effective n)" and entry["clusters"] == 9
    assert "[95% CI " in headline_text(entry) and ", clustered by video: 9 clusters]" in headline_text(entry)
    alone = [Sample(**{**s.model_dump(), "videos": [{"path": f"{s.id}.mp4"}]}) for s in samples]
    single = summarise(alone, rows)
    assert single["mcq"]["interval"] == "bootstrap" and "clusters" not in single["mcq"]
    assert headline_text(single["headline"][0]).endswith(", per question] on 45 samples")
    assert single["mcq"]["ci95"] == accuracy_summary([float(r["correct"]) for r in rows])["ci95"]


def test_judge_score_means_are_clustered_too():
    rng = np.random.default_rng(23)
    videos = 40
    scores = np.repeat(rng.integers(0, 6, videos), 5).astype(float)  # a video's answers score alike
    clusters = np.repeat(np.arange(videos), 5).tolist()
    per_answer = mean_summary(scores.tolist(), 0, 5)
    clustered = mean_summary(scores.tolist(), 0, 5, clusters)
    assert "interval" not in per_answer and clustered["interval"] == "cluster bootstrap"
    assert clustered["mean"] == per_answer["mean"] and clustered["clusters"] == videos
    width = clustered["ci95"][1] - clustered["ci95"][0]
    assert width > 1.8 * (per_answer["ci95"][1] - per_answer["ci95"][0])  # about sqrt(5) wider
    few = mean_summary(scores[:50].tolist(), 0, 5, clusters[:50])
    assert few["interval"] == "bootstrap (effective n)" and 0 <= few["ci95"][0] <= few["ci95"][1] <= 5
    alone = mean_summary(scores.tolist(), 0, 5, list(range(scores.size)))
    assert alone == per_answer  # one answer per video: the numbers of before


def test_a_clustered_interval_is_never_narrower_than_the_per_question_one():
    """Every video with exactly half its answers right: the clustered variance is zero (a cluster
    bootstrap gives [0.5, 0.5]), but 400 questions still only tell the accuracy to a few points."""
    sizes = np.full(40, 10)
    summary = cluster_summary(sizes // 2, sizes)
    assert summary["interval"] == "cluster bootstrap"
    assert cluster_bootstrap_interval(sizes // 2, sizes) == (0.5, 0.5)
    assert summary["ci95"] == list(binomial_bootstrap_interval(200, 400)) and summary["ci95"][0] < 0.46
    a = np.tile([1.0, 0.0], 100)  # on each video, A right once where B is wrong, and the other way
    b = np.tile([0.0, 1.0], 100)
    paired = pair_summary(a, b, np.repeat(np.arange(100), 2).tolist())
    assert paired["mcnemar_p"] == paired["mcnemar_per_question_p"] == 1.0
    assert paired["ci95"] == list(paired_bootstrap(a, b))
