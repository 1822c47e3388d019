"""Confidence intervals of accuracies, one function per kind.

Questions that share a video are not independent (a model that misreads a video tends to miss
every question on it), so an interval that treats them as independent is too narrow. Every
interval here that accounts for this takes **per-cluster counts**: for each cluster (the
questions of one video, `video_clusters`), the sum of its values (correct answers) and how many
values it has. These are bounded by the number of videos and can be added up as a run streams.

- `wilson_interval(successes, n)`: Wilson's score interval, for small groups (a bootstrap of a
  handful of 0/1 values degenerates to [1, 1] when all are right); `n` may be an effective
  sample size.
- `bootstrap_interval(values)`: the percentile bootstrap of independent values.
- `cluster_bootstrap_interval(sums, counts)`: the percentile bootstrap that resamples whole
  clusters (the accuracy of a resample is its correct answers over its questions).
- `effective_wilson_interval(sums, counts)`: Wilson's interval at the effective sample size,
  the number of questions over the design effect (Kish), for accuracies over few videos.
- `effective_bootstrap_interval(values, clusters)`: for means of scores over few videos, the
  bootstrap interval of independent values widened by the square root of the design effect.
- `clustered_standard_error(sums, counts)`: the cluster-robust standard error of a mean; its
  normal interval (`clustered_normal_interval`) stands in for the bootstrap from
  `CLUSTER_NORMAL_FROM` clusters on, where the bootstrap distribution is normal to within its
  own noise and drawing it would take seconds per group.

- `binomial_bootstrap_interval(successes, n)`: the bootstrap of independent 0/1 values from
  their two counts.

`accuracy_summary(values, clusters)` and `cluster_summary(sums, counts)` pick the kind of an
accuracy's interval (`mean_interval` that of a mean of scores): with
every cluster of one question, exactly the per-question intervals of earlier versions (Wilson
below `SMALL_GROUP` samples, the bootstrap from there on); otherwise Wilson at the effective
sample size below `SMALL_GROUP` clusters, the cluster bootstrap from there on, and the normal
interval from `CLUSTER_NORMAL_FROM` clusters. A clustered interval is never narrower than the
per-question one (where a video's answers differ more than answers across videos, the clustered
variance is the smaller: the per-question interval stands, as the design effect is kept >= 1).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

SMALL_GROUP = 30  # below this many samples (or clusters), intervals are Wilson's
Z95 = 1.959963984540054


DRAWS_AT_ONCE = 1 << 22  # indices drawn per step (32 MiB): 2,000 resamples of 100,000 were 1.6 GB
BINOMIAL_FROM = 20_000  # 0/1 values from this many on: each resample's count drawn directly
CLUSTER_NORMAL_FROM = 20_000  # clusters from this many on: the normal interval of the clustered SE

# the names results.json gives each kind (`interval`)
WILSON, BOOTSTRAP = "wilson", "bootstrap"
CLUSTER_WILSON, CLUSTER_WIDENED, CLUSTER_BOOTSTRAP, CLUSTER_NORMAL = (
    "wilson (effective n)",
    "bootstrap (effective n)",
    "cluster bootstrap",
    "clustered standard error",
)
CLUSTERED_KINDS = (CLUSTER_WILSON, CLUSTER_WIDENED, CLUSTER_BOOTSTRAP, CLUSTER_NORMAL)


def bootstrap_interval(values: list[float], *, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean.

    Resamples are drawn a few at a time (the same draws as all at once, in bounded memory). For
    many 0/1 values (accuracies of large runs) the number of ones in a resample is drawn from
    its binomial distribution instead of drawing every index: the same bootstrap distribution,
    in time that does not grow with the number of values."""
    if not values:
        return (float("nan"), float("nan"))
    data = np.asarray(values, dtype=np.float64)
    ones = int(np.count_nonzero(data == 1.0))
    if data.size >= BINOMIAL_FROM and ones + np.count_nonzero(data == 0.0) == data.size:
        return binomial_bootstrap_interval(ones, data.size, resamples=resamples, seed=seed)
    rng = np.random.default_rng(seed)
    step = max(1, DRAWS_AT_ONCE // data.size)
    means = np.concatenate(
        [
            data[rng.integers(0, data.size, size=(min(step, resamples - start), data.size))].mean(axis=1)
            for start in range(0, resamples, step)
        ]
    )
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def binomial_bootstrap_interval(
    successes: int, n: int, *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """The percentile bootstrap of n independent 0/1 values of which `successes` are 1, from the
    two counts alone: each resample's number of ones is drawn from its binomial distribution
    (the same bootstrap distribution as drawing every value)."""
    if n == 0:
        return (float("nan"), float("nan"))
    means = np.random.default_rng(seed).binomial(n, successes / n, size=resamples) / n
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def _widest(first: tuple[float, float], second: tuple[float, float]) -> tuple[float, float]:
    return min(first[0], second[0]), max(first[1], second[1])


def wilson_interval(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (`n` may be an effective, fractional size)."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


def _counts(sums: ArrayLike, counts: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    found = np.asarray(sums, dtype=np.float64), np.asarray(counts, dtype=np.float64)
    if found[0].shape != found[1].shape or found[0].ndim != 1:
        raise ValueError("sums and counts must be two lists of the same length, one entry per cluster")
    if found[1].size and found[1].min() < 1:
        raise ValueError("every cluster must count at least one value")
    return found


def cluster_bootstrap_interval(
    sums: ArrayLike, counts: ArrayLike, *, resamples: int = 2000, seed: int = 0
) -> tuple[float, float]:
    """95% percentile bootstrap interval of a mean over clusters: each resample draws as many
    clusters as there are, with replacement, and its mean is its summed values over its values.
    With every cluster of one value, these are `bootstrap_interval`'s draws and interval."""
    total, size = _counts(sums, counts)
    if not total.size:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    step = max(1, DRAWS_AT_ONCE // total.size)
    means = []
    for start in range(0, resamples, step):
        picks = rng.integers(0, total.size, size=(min(step, resamples - start), total.size))
        means.append(total[picks].sum(axis=1) / size[picks].sum(axis=1))
    low, high = np.percentile(np.concatenate(means), [2.5, 97.5])
    return float(low), float(high)


def clustered_standard_error(sums: ArrayLike, counts: ArrayLike) -> float:
    """The cluster-robust standard error of the mean, with the small-sample factor C/(C-1):
    sqrt(C/(C-1) * sum_c (sum_c - n_c * mean)^2) / n over C clusters of n values. With one value
    per cluster it is the usual standard error (sample deviation, ddof=1, over sqrt(n)).
    lmms-eval's `clustered_stderr` (0.6+) estimates the same variance without that factor and
    with the per-question term over n(n-1): the two agree to O(1/C)."""
    total, size = _counts(sums, counts)
    if total.size < 2:
        return float("nan")
    n = size.sum()
    deviations = total - size * (total.sum() / n)
    return math.sqrt(total.size / (total.size - 1) * float(np.dot(deviations, deviations))) / n


def clustered_normal_interval(sums: ArrayLike, counts: ArrayLike) -> tuple[float, float]:
    """mean ± 1.96 clustered standard errors, within [0, 1] (for accuracies of many clusters)."""
    total, size = _counts(sums, counts)
    mean, half = float(total.sum() / size.sum()), Z95 * clustered_standard_error(total, size)
    return max(0.0, mean - half), min(1.0, mean + half)


def design_effect(sums: ArrayLike, counts: ArrayLike, squares: ArrayLike | None = None) -> float:
    """How many times the variance of a mean grows because its values share clusters: the
    clustered variance over the variance of as many independent values (Kish's design effect).
    `squares`: per-cluster sums of squared values (None: the values are 0/1, their squares are
    themselves). Kept within [1, the value if a cluster's values were all alike (sum of squared
    sizes over n)]: never narrower than independent values. With every value alike (every
    answer right, or every one wrong) nothing shows how alike a cluster's values are, and the
    largest value is taken."""
    total, size = _counts(sums, counts)
    n = size.sum()
    most = max(1.0, float(np.dot(size, size) / n))
    mean = total.sum() / n
    squared = total if squares is None else np.asarray(squares, dtype=np.float64)
    independent = (squared.sum() - n * mean * mean) / (n - 1) / n if n > 1 else 0.0
    if total.size < 2 or independent <= 1e-12 * max(1.0, mean * mean):
        return most
    return min(most, max(1.0, clustered_standard_error(total, size) ** 2 / independent))


def effective_wilson_interval(sums: ArrayLike, counts: ArrayLike) -> tuple[float, float]:
    """Wilson's interval at the effective sample size n / `design_effect` (for accuracies over
    few clusters, where a bootstrap of clusters has too few to draw from)."""
    total, size = _counts(sums, counts)
    n = size.sum()
    if not n:
        return (float("nan"), float("nan"))
    effective = n / design_effect(total, size)
    return wilson_interval(total.sum() / n * effective, effective)


def effective_bootstrap_interval(
    values: Sequence[float], clusters: Sequence[Hashable]
) -> tuple[float, float]:
    """The bootstrap interval of independent values widened about their mean by the square root
    of the design effect: for means of scores (not 0/1) over few clusters, where a bootstrap of
    clusters has too few to draw from and Wilson's interval does not apply."""
    sums, counts = cluster_counts(values, clusters)
    squares, _ = cluster_counts([value * value for value in values], clusters)
    low, high = bootstrap_interval(list(values))
    mean, widen = float(np.mean(values)), math.sqrt(design_effect(sums, counts, squares))
    return mean - widen * (mean - low), mean + widen * (high - mean)


def cluster_positions(clusters: Sequence[Hashable]) -> tuple[np.ndarray, int]:
    """Each value's cluster as a number (clusters numbered in the order they first appear), and
    how many clusters there are: the bins of `np.bincount`."""
    index: dict[Hashable, int] = {}
    numbers = (index.setdefault(cluster, len(index)) for cluster in clusters)
    return np.fromiter(numbers, dtype=np.int64, count=len(clusters)), len(index)


def cluster_counts(values: Sequence[float], clusters: Sequence[Hashable]) -> tuple[np.ndarray, np.ndarray]:
    """Per-cluster sums and counts of `values` (`clusters[i]` is value i's cluster), clusters
    in the order they first appear."""
    if len(values) != len(clusters):
        raise ValueError("one cluster per value")
    positions, found = cluster_positions(clusters)
    sums = np.bincount(positions, weights=np.asarray(values, dtype=np.float64), minlength=found)
    return sums, np.bincount(positions, minlength=found).astype(np.float64)


def _independent_summary(values: list[float]) -> dict[str, Any]:
    n = len(values)
    if n < SMALL_GROUP:
        low, high = wilson_interval(sum(values), n)
        method = WILSON
    else:
        low, high = bootstrap_interval(values)
        method = BOOTSTRAP
    return {"n": n, "accuracy": float(np.mean(values)), "ci95": [low, high], "interval": method}


def cluster_summary(sums: ArrayLike, counts: ArrayLike) -> dict[str, Any]:
    """`{n, accuracy, ci95, interval[, clusters]}` of an accuracy from its per-cluster counts
    (correct answers and questions per video); `clusters` is there when some cluster has more
    than one question. The kind of interval is chosen as the module says."""
    total, size = _counts(sums, counts)
    n = int(size.sum())
    if n == 0:  # JSON has no NaN: an empty summary says null
        return {"n": 0, "accuracy": None, "ci95": [None, None], "interval": WILSON}
    if size.max() == 1:
        return _independent_summary(total.tolist())
    if total.size < SMALL_GROUP:
        low, high = effective_wilson_interval(total, size)
        method = CLUSTER_WILSON
    else:  # never narrower than the per-question bootstrap (videos whose answers balance out)
        independent = binomial_bootstrap_interval(round(float(total.sum())), n)
        if total.size < CLUSTER_NORMAL_FROM:
            low, high = _widest(cluster_bootstrap_interval(total, size), independent)
            method = CLUSTER_BOOTSTRAP
        else:
            low, high = _widest(clustered_normal_interval(total, size), independent)
            method = CLUSTER_NORMAL
    return {
        "n": n,
        "accuracy": float(total.sum() / n),
        "ci95": [low, high],
        "interval": method,
        "clusters": int(total.size),
    }


def mean_interval(
    values: Sequence[float], clusters: Sequence[Hashable] | None = None
) -> tuple[tuple[float, float], dict[str, Any]]:
    """95% interval of the mean of scores on [0, 1] (not 0/1: judges' scores, scaled), and
    `{interval, clusters}` where it is clustered: with every cluster of one value the bootstrap
    of earlier versions; else the bootstrap widened by the design effect below `SMALL_GROUP`
    clusters, the cluster bootstrap from there on, the clustered normal interval from
    `CLUSTER_NORMAL_FROM` clusters."""
    keys = clusters if clusters is not None else range(len(values))
    sums, counts = cluster_counts(values, keys)
    if not counts.size or counts.max() == 1:
        return bootstrap_interval(list(values)), {}
    kind = {"clusters": int(sums.size)}
    if sums.size < SMALL_GROUP:
        low, high = effective_bootstrap_interval(values, keys)
        return (max(0.0, low), min(1.0, high)), {"interval": CLUSTER_WIDENED, **kind}
    independent = bootstrap_interval(list(values))  # never narrower than it
    if sums.size < CLUSTER_NORMAL_FROM:
        interval = _widest(cluster_bootstrap_interval(sums, counts), independent)
        return interval, {"interval": CLUSTER_BOOTSTRAP, **kind}
    return _widest(clustered_normal_interval(sums, counts), independent), {"interval": CLUSTER_NORMAL, **kind}


def accuracy_summary(values: list[float], clusters: Sequence[Hashable] | None = None) -> dict[str, Any]:
    """`cluster_summary` of 0/1 values; `clusters` names each value's cluster (its video), None
    treats every value as its own (Wilson below `SMALL_GROUP` samples, a bootstrap from there on)."""
    if clusters is None:
        clusters = range(len(values))
    return cluster_summary(*cluster_counts(values, clusters))
