"""Run-level claim scores: means with 95% bootstrap intervals overall, per question category
(TEMP, CRD, NPA, STA, TH) and per modality type (dialogue, scene, multimodal), from the score
rows the claim judges fill (`<measure>` 0-5 or None).

results.json, per judge (`factuality`, `relevance`, `coherence`):

    {"scale": [0, 5], "score_from": "judge",
     "overall": {n, mean, ci95}, "by_category": {key: {n, mean, ci95}}, "by_modality": {...},
     "from_labels": {n, mean, ci95},      # the label-derived score, as a check on the judge
     "labels": {label: claims},           # label counts over all judged claims
     "unscored": {why: answers}}          # no_claims, empty_answer, error

and two aggregates with the same breakdowns: `claim_aggregate_official`, the official evaluation's
(sshaar/MovieRecapsQA `eval/evaluator.py`): a question's aggregate is the mean of whichever of
its three scores exist, and questions with none are left out; and `claim_aggregate`, ours: the
mean of the three, over the questions all three scored (so that every question weighs the three
measures alike). The two differ only where a judge failed or had nothing to score. Categories and
modality types are
the samples' `category` and `modality` metadata; questions without one are in `overall` only.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from vqakit.schema import Sample
from vqakit.scoring import group_keys, mean_summary, register_metric, video_clusters

MEASURES = ("factuality", "relevance", "coherence")
AGGREGATE = "claim_aggregate"
OFFICIAL_AGGREGATE = "claim_aggregate_official"
CATEGORIES = ("TEMP", "CRD", "NPA", "STA", "TH")
MODALITIES = ("dialogue", "scene", "multimodal")
SCALE = (0.0, 5.0)


def _rank(key: str, known: tuple[str, ...]) -> tuple[int, str]:
    """Known keys first in their order (`dialogue-based` counts as `dialogue`), others after."""
    lowered = key.lower()
    found = next((i for i, name in enumerate(known) if lowered.startswith(name.lower())), len(known))
    return found, key


def breakdown(
    samples: list[Sample], rows: list[dict[str, Any]], value: Callable[[dict[str, Any]], float | None]
) -> dict[str, Any]:
    """`{overall, by_category, by_modality}` of `value(row)` over the rows where it is not None
    (intervals clustered by video: a movie's questions share its recap)."""
    by_id = {sample.id: sample for sample in samples}
    clusters = video_clusters(samples)
    scored = [
        (by_id[row["sample_id"]], v)
        for row in rows
        if row["sample_id"] in by_id and (v := value(row)) is not None
    ]

    def summary(part: list[tuple[Sample, float]]) -> dict[str, Any]:
        return mean_summary([v for _, v in part], *SCALE, clusters=[clusters[s.id] for s, _ in part])

    found: dict[str, Any] = {"overall": summary(scored)}
    for group, known in (("category", CATEGORIES), ("modality", MODALITIES)):
        buckets: dict[str, list[tuple[Sample, float]]] = defaultdict(list)
        for sample, v in scored:
            for key in group_keys(sample, group):
                buckets[key].append((sample, v))
        found[f"by_{group}"] = {
            key: summary(buckets[key]) for key in sorted(buckets, key=lambda k: _rank(k, known))
        }
    return found


def score_summary(
    name: str, samples: list[Sample], rows: list[dict[str, Any]], labels: list[str]
) -> dict[str, Any] | None:
    """A claim judge's results.json entry (see the module docstring); None when it judged nothing."""
    judged = [row for row in rows if name in row]
    if not judged:
        return None
    counts: Counter[str] = Counter()
    for row in judged:
        counts.update(row.get(f"{name}_labels") or {})
    derived = [row[f"{name}_from_labels"] for row in judged if row.get(f"{name}_from_labels") is not None]
    return {
        "scale": list(SCALE),
        "score_from": "judge",
        **breakdown(samples, judged, lambda row: row.get(name)),
        "from_labels": mean_summary(derived, *SCALE),
        "labels": {label: counts[label] for label in labels},
        "unscored": dict(
            sorted(Counter(row[f"{name}_unscored"] for row in judged if f"{name}_unscored" in row).items())
        ),
    }


def aggregate(row: dict[str, Any]) -> float | None:
    """Ours: the mean of a question's three scores; None unless all three were given."""
    values = [row.get(measure) for measure in MEASURES]
    return None if any(v is None for v in values) else sum(values) / len(values)


def official_aggregate(row: dict[str, Any]) -> float | None:
    """The official evaluation's: the mean of whichever of the three scores were given; None
    when none was."""
    values = [v for measure in MEASURES if (v := row.get(measure)) is not None]
    return sum(values) / len(values) if values else None


@register_metric
def claim_aggregate(samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """`claim_aggregate` in results.json, when the run has claim judges."""
    if not any(measure in row for row in rows for measure in MEASURES):
        return {}
    return {
        AGGREGATE: {
            "scale": list(SCALE),
            "rule": "mean of the three scores, questions all three scored",
            **breakdown(samples, rows, aggregate),
        },
        OFFICIAL_AGGREGATE: {
            "scale": list(SCALE),
            "rule": "mean of the scores a question has (the official rule), questions with one or more",
            **breakdown(samples, rows, official_aggregate),
        },
    }
