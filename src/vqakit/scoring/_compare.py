"""Paired comparison of two runs over the same samples: is the difference real?

MCQ and open-ended samples are compared apart (the headline definitions of `_headline`). For
every group, only samples scored in both runs count. Reported: both accuracies, the
difference B - A with a 95% paired bootstrap interval, and the McNemar test on the discordant
pairs (A right / B wrong against A wrong / B right), both clustered by video where questions
share videos (`_paired`: a paired cluster bootstrap and a clustered McNemar test; with one
question per video, the per-question bootstrap and exact McNemar test).

Registered diagnostics (`register_diagnostic`: a boolean score field, or `field=value`, whether a
score field has that value) are reported as rates in both runs, pooled and per key of every group
a system registers with a function (`register_group`, e.g. a benchmark's question families); the
metadata groups stay with accuracy only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vqakit.plugins import load_systems
from vqakit.schema import Sample
from vqakit.scoring._clusters import video_clusters
from vqakit.scoring._hooks import _GROUPS, default_groups, diagnostics, group_keys
from vqakit.scoring._paired import pair_summary


def _diagnostic(row: dict[str, Any] | None, key: str) -> bool | None:
    """A row's value of a diagnostic: its boolean field `key`, or for `field=value` whether the
    field has that value; None when the row has no such field."""
    field, equals, wanted = key.partition("=")
    value = (row or {}).get(field)
    if value is None:
        return None
    return str(value) == wanted if equals else bool(value)


def _diagnostics(
    scores_a: list[dict[str, Any]], scores_b: list[dict[str, Any]], only: set[str] | None = None
) -> dict[str, Any]:
    """Rates of the registered diagnostics in both runs, over samples that have the value in both
    (e.g. the sufficiency judge's Y rate without and with localization); `only` keeps those
    sample ids."""
    rows_b = {row["sample_id"]: row for row in scores_b}
    found: dict[str, Any] = {}
    for key, label in diagnostics().items():
        pairs = []
        for row in scores_a:
            if only is not None and row["sample_id"] not in only:
                continue
            value_a, value_b = _diagnostic(row, key), _diagnostic(rows_b.get(row["sample_id"]), key)
            if value_a is not None and value_b is not None:
                pairs.append((value_a, value_b))
        if pairs:
            a, b = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
            found[key] = {
                "label": label,
                "n": len(pairs),
                "rate_a": float(a.mean()),
                "rate_b": float(b.mean()),
            }
    return found


def _diagnostic_groups() -> tuple[str, ...]:
    """The groups diagnostics are broken down by: default groups a system registered with a
    function (`register_group`), in rank order."""
    load_systems()
    return tuple(
        group.name
        for group in sorted(_GROUPS.values(), key=lambda group: group.rank)
        if group.default and group.keys is not None
    )


def _diagnostics_by_group(
    samples: list[Sample],
    scores_a: list[dict[str, Any]],
    scores_b: list[dict[str, Any]],
    groups: tuple[str, ...],
) -> dict[str, Any]:
    """{group: {key: `_diagnostics` over the samples with that key}}, empty buckets left out."""
    found: dict[str, Any] = {}
    for group in groups:
        buckets: dict[str, set[str]] = {}
        for sample in samples:
            for key in group_keys(sample, group):
                buckets.setdefault(key, set()).add(sample.id)
        rates = {key: _diagnostics(scores_a, scores_b, ids) for key, ids in sorted(buckets.items())}
        rates = {key: entry for key, entry in rates.items() if entry}
        if rates:
            found[group] = rates
    return found


def compare_runs(
    samples: list[Sample],
    scores_a: list[dict[str, Any]],
    scores_b: list[dict[str, Any]],
    groups: tuple[str, ...] | None = None,
    diagnostics_by: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """Both runs' accuracy, one kind of sample at a time (`mcq`, `open_ended`: None where the
    runs share no scored sample of that kind), overall where it is defined (the runs share
    scored samples of one kind only; see `_headline`), and per key of `groups` (default: the
    default groups) for each kind (`groups` for MCQ, `open_ended_groups`); and the registered
    diagnostics pooled and per key of `diagnostics_by` (default: `_diagnostic_groups`)."""
    correct_a = {row["sample_id"]: row["correct"] for row in scores_a if row["correct"] is not None}
    correct_b = {row["sample_id"]: row["correct"] for row in scores_b if row["correct"] is not None}
    shared = [s for s in samples if s.id in correct_a and s.id in correct_b]
    if not shared:
        raise ValueError("the two runs have no scored sample in common")
    clusters = video_clusters(samples)

    def paired(subset: list[Sample]) -> dict[str, Any]:
        return pair_summary(
            np.array([float(correct_a[s.id]) for s in subset]),
            np.array([float(correct_b[s.id]) for s in subset]),
            [clusters[s.id] for s in subset],
        )

    def by_group(subset: list[Sample]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for group in groups or default_groups():
            buckets: dict[str, list[Sample]] = {}
            for sample in subset:
                for key in group_keys(sample, group):
                    buckets.setdefault(key, []).append(sample)
            if buckets:
                found[group] = {key: paired(part) for key, part in sorted(buckets.items())}
        return found

    kinds = {"mcq": [s for s in shared if s.is_mcq], "open_ended": [s for s in shared if not s.is_mcq]}
    result: dict[str, Any] = {kind: paired(subset) if subset else None for kind, subset in kinds.items()}
    present = [kind for kind, subset in kinds.items() if subset]
    result["overall"] = result[present[0]] if len(present) == 1 else None
    result["groups"] = by_group(kinds["mcq"])
    result["open_ended_groups"] = by_group(kinds["open_ended"])
    result["diagnostics"] = _diagnostics(scores_a, scores_b)
    result["diagnostics_by_group"] = _diagnostics_by_group(
        samples, scores_a, scores_b, _diagnostic_groups() if diagnostics_by is None else diagnostics_by
    )
    return result
