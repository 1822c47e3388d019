"""What benchmark systems add to scoring, registered by decorator:

- groups: named ways to break results down (`register_group`); any metadata key also works as a
  group without registering;
- score fields: per-sample values computed without a model (`register_score_fields`), e.g.
  retrieval success or object recall;
- metrics: run-level results computed from the score rows (`register_metric`);
- diagnostics: boolean score fields `vqakit compare` reports as rates in both runs
  (`register_diagnostic`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from vqakit.plugins import load_systems
from vqakit.schema import Prediction, Sample

GroupKeys = Callable[[Sample], list[str]]
ScoreFields = Callable[[Sample, Prediction, "int | None"], dict[str, Any]]
Metric = Callable[[list[Sample], list[dict[str, Any]]], dict[str, Any]]


@dataclass(frozen=True)
class Group:
    name: str
    keys: GroupKeys | None  # None: the metadata value (each item of a list)
    default: bool  # broken down in every run
    rank: int  # order among default groups


_GROUPS: dict[str, Group] = {
    "category": Group("category", None, True, 10),
    "skills": Group("skills", None, True, 20),
    "modality": Group("modality", None, True, 40),
}
_SCORE_FIELDS: list[ScoreFields] = []
_METRICS: list[Metric] = []
_DIAGNOSTICS: dict[str, str] = {}


def register_group(name: str, *, default: bool = True, rank: int = 50) -> Callable[[GroupKeys], GroupKeys]:
    """Decorator for a function giving a sample's keys in the group `name` ([] leaves it out)."""

    def register(keys: GroupKeys) -> GroupKeys:
        _GROUPS[name] = Group(name, keys, default, rank)
        return keys

    return register


def register_score_fields(fields: ScoreFields) -> ScoreFields:
    """Decorator for `(sample, prediction, choice) -> {field: value}` added to each score row
    (`choice` is the option finally read, None for open-ended or failed samples)."""
    if fields not in _SCORE_FIELDS:
        _SCORE_FIELDS.append(fields)
    return fields


def register_metric(metric: Metric) -> Metric:
    """Decorator for `(samples, rows) -> {key: value}` merged into results.json."""
    if metric not in _METRICS:
        _METRICS.append(metric)
    return metric


def register_diagnostic(field: str, label: str) -> None:
    """A boolean score field `vqakit compare` reports as a rate in both runs."""
    _DIAGNOSTICS[field] = label


def default_groups() -> tuple[str, ...]:
    load_systems()
    return tuple(g.name for g in sorted(_GROUPS.values(), key=lambda g: g.rank) if g.default)


def group_names() -> tuple[str, ...]:
    """Every registered group (default or not), for listing what `--group-by` takes."""
    load_systems()
    return tuple(_GROUPS)


def group_keys(sample: Sample, group: str) -> list[str]:
    """The keys of `sample` in `group`: a registered group's function, else the metadata value
    of that name (named fields first, then extra keys; each item of a list)."""
    load_systems()
    registered = _GROUPS.get(group)
    if registered is not None and registered.keys is not None:
        return registered.keys(sample)
    meta = sample.metadata
    value = getattr(meta, group, None)
    if value is None and meta.model_extra:
        value = meta.model_extra.get(group)
    if isinstance(value, list):
        return [str(item) for item in value]
    return [str(value)] if value is not None else []


def score_field_hooks() -> list[ScoreFields]:
    load_systems()
    return list(_SCORE_FIELDS)


def metric_hooks() -> list[Metric]:
    load_systems()
    return list(_METRICS)


def diagnostics() -> dict[str, str]:
    load_systems()
    return dict(_DIAGNOSTICS)
