"""Paired tests of two runs over the same samples, per question and clustered by video.

Per question (every sample on a video of its own): the 95% paired bootstrap interval of the
difference B - A (samples resampled together) and the exact McNemar test on the discordant pairs.

Clustered (samples share videos): questions on one video are not independent, so both tests
resample or permute whole clusters. `paired_cluster_bootstrap` draws clusters with replacement
(the difference of a resample is its summed B - A over its questions); from
`CLUSTER_NORMAL_FROM` clusters on, the normal interval of the clustered standard error of the
differences stands in for it. `clustered_mcnemar` is the sign-flip test of the per-cluster
discordance d_c = (A right, B wrong) - (A wrong, B right): under no difference between the runs,
swapping A and B on a whole video is as likely as not, so the sum of d_c is compared with its
distribution over all 2^C swaps. That distribution is computed exactly while it is small; beyond
`EXACT_SIGN_FLIP_WORK` the normal approximation is Durkalski et al.'s clustered McNemar test
(Statistics in Medicine 22, 2003): (sum d_c)^2 / sum d_c^2 against chi-square with 1 degree of
freedom. With one question per video the sign-flip test is the exact McNemar test, and both
functions return exactly the per-question numbers. `pair_summary` reports an interval never
narrower, and a p-value never smaller, than the per-question ones (videos whose discordant
answers cancel out would otherwise make a difference look surer than the questions show).

Each function takes per-cluster counts (bounded by the number of videos).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from vqakit.scoring._intervals import (
    CLUSTER_NORMAL_FROM,
    Z95,
    cluster_bootstrap_interval,
    cluster_positions,
    clustered_standard_error,
)

EXACT_SIGN_FLIP_WORK = 50_000_000  # clusters x summed |d_c| up to which the sign-flip test is exact


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the two discordant counts."""
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def paired_bootstrap(
    a: np.ndarray, b: np.ndarray, *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile bootstrap interval of mean(b) - mean(a), pairs resampled together."""
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, a.size, size=(resamples, a.size))
    differences = b[picks].mean(axis=1) - a[picks].mean(axis=1)
    low, high = np.percentile(differences, [2.5, 97.5])
    return float(low), float(high)


def paired_cluster_bootstrap(
    a_sums: ArrayLike, b_sums: ArrayLike, counts: ArrayLike, *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """95% interval of the difference B - A of two accuracies over the same clusters, from
    per-cluster counts (A's and B's correct answers, questions): the cluster bootstrap of the
    per-cluster differences (`cluster_bootstrap_interval`), or from `CLUSTER_NORMAL_FROM`
    clusters on, the normal interval of their clustered standard error."""
    a, b, size = (np.asarray(x, dtype=np.float64) for x in (a_sums, b_sums, counts))
    if not size.size:
        return (float("nan"), float("nan"))
    difference = b - a
    if size.size >= CLUSTER_NORMAL_FROM:
        mean = float(difference.sum() / size.sum())
        half = Z95 * clustered_standard_error(difference, size)
        return mean - half, mean + half
    return cluster_bootstrap_interval(difference, size, resamples=resamples, seed=seed)


def clustered_mcnemar(a_only: ArrayLike, b_only: ArrayLike) -> float:
    """Two-sided p-value of the clustered McNemar test from per-cluster discordant counts
    (questions A alone got right, and B alone): the exact sign-flip test of whole clusters, or
    Durkalski's normal approximation of it beyond `EXACT_SIGN_FLIP_WORK`."""
    a, b = np.asarray(a_only, dtype=np.int64), np.asarray(b_only, dtype=np.int64)
    if a.size and max(int((a + b).max()), 0) <= 1:  # one discordant pair per cluster at most
        return mcnemar_exact(int(a.sum()), int(b.sum()))
    flips = np.abs(a - b)
    flips = flips[flips > 0]
    observed = abs(int((a - b).sum()))
    if not flips.size or observed == 0:
        return 1.0
    total = int(flips.sum())
    if flips.size * total > EXACT_SIGN_FLIP_WORK:
        return math.erfc(observed / math.sqrt(2 * float(np.dot(flips, flips))))
    # distribution of U, the summed |d_c| of the clusters whose sign is kept: S = 2U - total
    chances = np.zeros(total + 1)
    chances[0] = 1.0
    reach = 0
    for flip in flips.tolist():
        shifted = chances[: reach + 1].copy()
        chances[: reach + 1] *= 0.5
        chances[flip : flip + reach + 1] += 0.5 * shifted
        reach += flip
    u = np.arange(total + 1)
    return min(1.0, float(chances[np.abs(2 * u - total) >= observed].sum()))


def pair_counts(
    a: Sequence[float], b: Sequence[float], clusters: Sequence[Hashable]
) -> dict[str, np.ndarray]:
    """Per-cluster counts of paired 0/1 outcomes (clusters in the order they first appear):
    `a`, `b` (correct answers), `counts` (questions), `a_only`, `b_only` (discordant pairs)."""
    positions, found = cluster_positions(clusters)
    first, second = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)

    def per_cluster(weights: np.ndarray) -> np.ndarray:
        return np.bincount(positions, weights=weights, minlength=found)

    return {
        "a": per_cluster(first),
        "b": per_cluster(second),
        "counts": per_cluster(np.ones_like(first)),
        "a_only": per_cluster(((first == 1) & (second == 0)).astype(np.float64)),
        "b_only": per_cluster(((first == 0) & (second == 1)).astype(np.float64)),
    }


def pair_summary(a: np.ndarray, b: np.ndarray, clusters: Sequence[Hashable] | None = None) -> dict[str, Any]:
    """Both accuracies, the difference B - A with its 95% interval and the McNemar p-value of
    paired 0/1 outcomes; with `clusters` (each pair's video) both are clustered, and `clusters`
    and `test` say so, where some video has more than one question."""
    a_only = int(((a == 1) & (b == 0)).sum())
    b_only = int(((a == 0) & (b == 1)).sum())
    found: dict[str, Any] = {
        "n": int(a.size),
        "accuracy_a": float(a.mean()),
        "accuracy_b": float(b.mean()),
        "difference": float(b.mean() - a.mean()),
        "a_only_correct": a_only,
        "b_only_correct": b_only,
    }
    counts = pair_counts(a, b, clusters if clusters is not None else range(a.size))
    if counts["counts"].max() == 1:
        return {**found, "ci95": list(paired_bootstrap(a, b)), "mcnemar_p": mcnemar_exact(a_only, b_only)}
    # never narrower, nor more significant, than the per-question tests
    low, high = paired_cluster_bootstrap(counts["a"], counts["b"], counts["counts"])
    per_question_low, per_question_high = paired_bootstrap(a, b)
    per_question_p = mcnemar_exact(a_only, b_only)
    clustered_p = clustered_mcnemar(counts["a_only"].astype(int), counts["b_only"].astype(int))
    return {
        **found,
        "ci95": [min(low, per_question_low), max(high, per_question_high)],
        "mcnemar_p": max(clustered_p, per_question_p),
        "mcnemar_per_question_p": per_question_p,
        "clusters": int(counts["counts"].size),
    }
