"""Confidence intervals of accuracies: the Wilson score interval for small groups (a bootstrap
of a handful of 0/1 values degenerates to [1, 1] when all are right), a percentile bootstrap
otherwise."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

SMALL_GROUP = 30  # below this many samples, intervals are Wilson's
Z95 = 1.959963984540054


DRAWS_AT_ONCE = 1 << 22  # indices drawn per step (32 MiB): 2,000 resamples of 100,000 were 1.6 GB
BINOMIAL_FROM = 20_000  # 0/1 values from this many on: each resample's count drawn directly


def bootstrap_interval(values: list[float], *, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean.

    Resamples are drawn a few at a time (the same draws as all at once, in bounded memory). For
    many 0/1 values (accuracies of large runs) the number of ones in a resample is drawn from
    its binomial distribution instead of drawing every index: the same bootstrap distribution,
    in time that does not grow with the number of values."""
    if not values:
        return (float("nan"), float("nan"))
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    ones = int(np.count_nonzero(data == 1.0))
    if data.size >= BINOMIAL_FROM and ones + np.count_nonzero(data == 0.0) == data.size:
        means = rng.binomial(data.size, ones / data.size, size=resamples) / data.size
    else:
        step = max(1, DRAWS_AT_ONCE // data.size)
        means = np.concatenate(
            [
                data[rng.integers(0, data.size, size=(min(step, resamples - start), data.size))].mean(axis=1)
                for start in range(0, resamples, step)
            ]
        )
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if n == 0:
        return (float("nan"), float("nan"))
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def accuracy_summary(values: list[float]) -> dict[str, Any]:
    """`{n, accuracy, ci95, interval}` of 0/1 values: Wilson below `SMALL_GROUP` samples, a
    bootstrap from there on."""
    n = len(values)
    if n == 0:  # JSON has no NaN: an empty summary says null
        return {"n": 0, "accuracy": None, "ci95": [None, None], "interval": "wilson"}
    if n < SMALL_GROUP:
        low, high = wilson_interval(sum(values), n)
        method = "wilson"
    else:
        low, high = bootstrap_interval(values)
        method = "bootstrap"
    return {
        "n": n,
        "accuracy": float(np.mean(values)) if values else None,
        "ci95": [low, high],
        "interval": method,
    }
