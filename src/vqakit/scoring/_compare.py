"""Paired comparison of two runs over the same samples: is the difference real?

For every group, only samples scored in both runs count. Reported: both accuracies, the
difference B - A with a 95% paired bootstrap interval (samples resampled together), and the
exact McNemar test on the discordant pairs (A right / B wrong against A wrong / B right).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from vqakit.schema import Sample
from vqakit.scoring._hooks import default_groups, diagnostics, group_keys


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
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, a.size, size=(resamples, a.size))
    differences = b[picks].mean(axis=1) - a[picks].mean(axis=1)
    low, high = np.percentile(differences, [2.5, 97.5])
    return float(low), float(high)


def _pair_summary(a: np.ndarray, b: np.ndarray) -> dict[str, Any]:
    a_only = int(((a == 1) & (b == 0)).sum())
    b_only = int(((a == 0) & (b == 1)).sum())
    return {
        "n": int(a.size),
        "accuracy_a": float(a.mean()),
        "accuracy_b": float(b.mean()),
        "difference": float(b.mean() - a.mean()),
        "ci95": list(paired_bootstrap(a, b)),
        "a_only_correct": a_only,
        "b_only_correct": b_only,
        "mcnemar_p": mcnemar_exact(a_only, b_only),
    }


def _diagnostics(scores_a: list[dict[str, Any]], scores_b: list[dict[str, Any]]) -> dict[str, Any]:
    """Rates of the registered diagnostics (boolean score fields) in both runs, over samples that
    have the value in both (e.g. the sufficiency judge's Y rate without and with localization)."""
    rows_b = {row["sample_id"]: row for row in scores_b}
    found: dict[str, Any] = {}
    for key, label in diagnostics().items():
        pairs = [
            (bool(row[key]), bool(rows_b[row["sample_id"]][key]))
            for row in scores_a
            if row.get(key) is not None and rows_b.get(row["sample_id"], {}).get(key) is not None
        ]
        if pairs:
            a, b = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
            found[key] = {
                "label": label,
                "n": len(pairs),
                "rate_a": float(a.mean()),
                "rate_b": float(b.mean()),
            }
    return found


def compare_runs(
    samples: list[Sample],
    scores_a: list[dict[str, Any]],
    scores_b: list[dict[str, Any]],
    groups: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    correct_a = {row["sample_id"]: row["correct"] for row in scores_a if row["correct"] is not None}
    correct_b = {row["sample_id"]: row["correct"] for row in scores_b if row["correct"] is not None}
    shared = [s for s in samples if s.id in correct_a and s.id in correct_b]
    if not shared:
        raise ValueError("the two runs have no scored sample in common")

    def arrays(subset: list[Sample]) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.array([float(correct_a[s.id]) for s in subset]),
            np.array([float(correct_b[s.id]) for s in subset]),
        )

    result: dict[str, Any] = {
        "overall": _pair_summary(*arrays(shared)),
        "groups": {},
        "diagnostics": _diagnostics(scores_a, scores_b),
    }
    for group in groups or default_groups():
        buckets: dict[str, list[Sample]] = {}
        for sample in shared:
            for key in group_keys(sample, group):
                buckets.setdefault(key, []).append(sample)
        if buckets:
            result["groups"][group] = {
                key: _pair_summary(*arrays(subset)) for key, subset in sorted(buckets.items())
            }
    return result
