"""A benchmark's own results table (the card's `official`, `vqakit.schema.OfficialTable`)
computed from a run's scored samples: results.json's `official`.

Each column is over the MCQ samples scored (an abstention is wrong, a failed sample left out,
as everywhere in vqakit): pooled over questions (`accuracy_summary`, its interval clustered by
video like every accuracy's), or
the mean of each key's accuracy (`mean: keys`, MLVU's M-Avg), whose 95% interval is a bootstrap
that resamples the questions within each key, or, where a key has fewer than `SMALL_GROUP`
questions (a bootstrap of a handful of 0/1 values degenerates), Wilson's interval at the mean's
effective sample size (K² / Σ 1/n_k for K keys of n_k questions).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import numpy as np

from vqakit.schema import OfficialColumn, OfficialTable, Sample
from vqakit.scoring._clusters import video_clusters
from vqakit.scoring._hooks import group_keys
from vqakit.scoring._intervals import SMALL_GROUP, accuracy_summary, wilson_interval

RESAMPLES = 2000


def _keys_of(sample: Sample, column: OfficialColumn) -> set[str]:
    found = set(group_keys(sample, column.group)) if column.group else set()
    return found & set(column.keys) if column.keys else found


def _pooled(rows: list[tuple[Sample, float]], clusters: dict[str, str]) -> dict[str, Any]:
    """`accuracy_summary` of these questions, its interval clustered by video."""
    return accuracy_summary([value for _, value in rows], [clusters[sample.id] for sample, _ in rows])


def _column(
    name: str, column: OfficialColumn, rows: list[tuple[Sample, float]], clusters: dict[str, str]
) -> dict[str, Any]:
    """One column's numbers: `{name, n, accuracy, ci95, interval, mean}` (and `keys` averaged)."""
    if column.group is None:
        return {"name": name, "mean": "questions", **_pooled(rows, clusters)}
    by_key: dict[str, list[float]] = defaultdict(list)
    pooled: list[tuple[Sample, float]] = []
    for sample, value in rows:
        found = _keys_of(sample, column)
        if found:
            pooled.append((sample, value))
            for key in found:
                by_key[key].append(value)
    if column.mean == "questions":
        return {"name": name, "mean": "questions", **_pooled(pooled, clusters)}
    order = column.keys or sorted(by_key)
    present = [key for key in order if by_key.get(key)]
    means = [float(np.mean(by_key[key])) for key in present]
    value = float(np.mean(means)) if means else None
    (low, high), method = _mean_interval([by_key[key] for key in present], value)
    return {
        "name": name,
        "mean": "keys",
        "n": len(pooled),
        "accuracy": value,
        "ci95": [low, high],
        "interval": method,
        "keys": {key: float(np.mean(by_key[key])) for key in present},
    }


def _mean_interval(groups: list[list[float]], value: float | None) -> tuple[tuple[Any, Any], str]:
    """The 95% interval of a mean of per-key accuracies, and how it was made."""
    if value is None:
        return (None, None), "none"
    if min(map(len, groups)) < SMALL_GROUP:
        effective = len(groups) ** 2 / sum(1 / len(group) for group in groups)
        return wilson_interval(value * effective, effective), "wilson (effective n)"
    return _stratified_interval(groups), "stratified bootstrap"


def _stratified_interval(groups: list[list[float]], seed: int = 0) -> tuple[float | None, float | None]:
    """95% percentile interval of the mean of group means, resampling within each group."""
    if not groups:
        return None, None
    rng = np.random.default_rng(seed)
    draws = np.zeros(RESAMPLES)
    for values in groups:
        data = np.asarray(values, dtype=np.float64)
        draws += data[rng.integers(0, data.size, size=(RESAMPLES, data.size))].mean(axis=1)
    low, high = np.percentile(draws / len(groups), [2.5, 97.5])
    return float(low), float(high)


def _each_keys(column: OfficialColumn, rows: list[tuple[Sample, float]]) -> list[str]:
    """The keys an `each` column expands to: its `keys` first, then the others found, most
    questions first (ties by name)."""
    counts: dict[str, int] = defaultdict(int)
    for sample, _ in rows:
        for key in _keys_of(sample, column.model_copy(update={"keys": []})):
            counts[key] += 1
    rest = sorted((key for key in counts if key not in column.keys), key=lambda key: (-counts[key], key))
    return [*(key for key in column.keys if counts.get(key)), *rest]


def official_results(
    table: OfficialTable, samples: dict[str, Sample], scores: list[dict[str, Any]]
) -> dict[str, Any]:
    """results.json's `official`: the table's definition (source, headline, setting, notes) and
    each column's numbers, in the table's order (an `each` column expanded to one per key)."""
    rows = [
        (samples[row["sample_id"]], float(row["correct"]))
        for row in scores
        if row.get("mcq") and row.get("correct") is not None and row["sample_id"] in samples
    ]
    clusters = video_clusters(samples.values())
    columns = []
    for column in table.columns:
        if column.each:
            for key in _each_keys(column, rows):
                single = column.model_copy(update={"keys": [key], "each": False})
                columns.append({**_column(key, single, rows, clusters), "block": column.name})
        else:
            columns.append(_column(column.name, column, rows, clusters))
    return {
        "source": table.source,
        "headline": table.headline,
        "columns": columns,
        "setting": table.setting.model_dump() if table.setting else None,
        "notes": list(table.notes),
    }


def official_headline(results: dict[str, Any]) -> dict[str, Any] | None:
    """The official headline column when it is not the pooled MCQ accuracy already at the head
    of the run (a mean of per-key accuracies: MLVU's M-Avg); else None."""
    official = results.get("official") or {}
    column = next((c for c in official.get("columns") or [] if c["name"] == official.get("headline")), None)
    if column is None or column.get("mean") != "keys" or not column.get("n"):
        return None
    return column
