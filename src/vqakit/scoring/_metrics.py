"""Per-sample scores and run-level results: accuracy, groups, bootstrap intervals, letters.

MCQ: a sample is correct when the extracted choice equals the gold index; abstentions and
failed calls count as wrong and are reported separately. Open-ended samples need a judge
model and are counted as unscored here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np

from vqakit.schema import Prediction, Sample
from vqakit.scoring._extract import LETTERS
from vqakit.scoring._recall import object_recall
from vqakit.scoring._retrieval import retrieval_fields, summarise_retrieval

DEFAULT_GROUPS = ("category", "skills", "hop_grounding", "modality")


def score_sample(
    sample: Sample, prediction: Prediction, second: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Score one prediction; `second` holds its model-based second passes by kind
    ("judge", "extract", "rubric", "sufficiency")."""
    second = second or {}
    row: dict[str, Any] = {"sample_id": sample.id, "mcq": sample.is_mcq}
    if "sufficiency" in second and second["sufficiency"]["verdict"] is not None:
        row["sufficient"] = bool(second["sufficiency"]["verdict"])
    if "rubric" in second:
        row["rubric"] = second["rubric"]["scores"]
    if sample.reasoning and prediction.reply:
        recall = object_recall(sample.reasoning, prediction.reply)
        if recall is not None:
            row["object_recall"], row["noun_recall"] = recall["object_recall"], recall["noun_recall"]
    if prediction.error is not None:
        row.update(retrieval_fields(sample, prediction, None))
        return {
            **row,
            "correct": False if sample.is_mcq else None,
            "status": f"error: {prediction.error.type}",
        }
    if not sample.is_mcq:
        row.update(retrieval_fields(sample, prediction, None))
        judged = second.get("judge")
        if judged is None:
            return {**row, "correct": None, "status": "unscored (open-ended needs a judge)"}
        if judged["verdict"] is None:
            return {
                **row,
                "correct": None,
                "status": "unscored (judge gave no verdict)",
                "judge_raw": judged["raw"],
            }
        return {**row, "correct": bool(judged["verdict"]), "status": "judged", "judge_raw": judged["raw"]}
    choice, how = prediction.choice, "rules"
    extracted = second.get("extract")
    if choice is None and extracted is not None and extracted["choice"] is not None:
        choice, how = int(extracted["choice"]), "model extractor"
    row.update(retrieval_fields(sample, prediction, choice))
    if choice is None:
        return {**row, "correct": False, "status": "abstained"}
    return {
        **row,
        "correct": choice == sample.answer,
        "status": "answered",
        "extracted_by": how,
        "chosen": LETTERS[choice],
        "gold": LETTERS[int(sample.answer)],
    }


def bootstrap_interval(values: list[float], *, resamples: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% percentile bootstrap interval of the mean."""
    if not values:
        return (float("nan"), float("nan"))
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    means = data[rng.integers(0, data.size, size=(resamples, data.size))].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return float(low), float(high)


def _summary(values: list[float]) -> dict[str, Any]:
    low, high = bootstrap_interval(values)
    return {"n": len(values), "accuracy": float(np.mean(values)) if values else None, "ci95": [low, high]}


def _group_keys(sample: Sample, group: str) -> list[str]:
    meta = sample.metadata
    if group == "skills":
        return list(meta.skills)
    if group == "hop_grounding":
        return [f"{meta.hop}-hop {meta.grounding}"] if meta.hop and meta.grounding else []
    value = getattr(meta, group, None)
    if value is None and meta.model_extra:
        value = meta.model_extra.get(group)
    return [str(value)] if value is not None else []


LENGTH_BUCKETS = ((60, "<1 min"), (180, "1-3 min"), (600, "3-10 min"), (1800, "10-30 min"))


def length_bucket(seconds: float) -> str:
    """Video-length bucket used for breakdowns."""
    for limit, label in LENGTH_BUCKETS:
        if seconds < limit:
            return label
    return "30+ min"


def summarise(
    samples: list[Sample],
    scores: list[dict[str, Any]],
    groups: tuple[str, ...] = DEFAULT_GROUPS,
    extra_groups: dict[str, dict[str, str]] | None = None,
    min_group_size: int = 1,
) -> dict:
    """Run-level results. `extra_groups` adds groupings computed outside the samples' metadata,
    as {group name: {sample id: key}} (the runner adds video_length this way)."""
    by_id = {s.id: s for s in samples}
    scored = [row for row in scores if row["correct"] is not None]
    values = [float(row["correct"]) for row in scored]
    results: dict[str, Any] = {
        "overall": _summary(values),
        "counts": dict(Counter(row["status"].split(":")[0] for row in scores)),
        "groups": {},
    }
    for group in groups:
        buckets: dict[str, list[float]] = defaultdict(list)
        for row in scored:
            for key in _group_keys(by_id[row["sample_id"]], group):
                buckets[key].append(float(row["correct"]))
        if buckets:
            results["groups"][group] = {key: _summary(v) for key, v in sorted(buckets.items())}
    for group, keys in (extra_groups or {}).items():
        extra: dict[str, list[float]] = defaultdict(list)
        for row in scored:
            if row["sample_id"] in keys:
                extra[keys[row["sample_id"]]].append(float(row["correct"]))
        if extra:
            results["groups"][group] = {key: _summary(v) for key, v in sorted(extra.items())}
    recalled = [row for row in scores if "object_recall" in row]
    if recalled:
        by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for row in recalled:
            by_category[str(by_id[row["sample_id"]].metadata.category)].append(row)

        def means(rows: list[dict[str, Any]]) -> dict[str, Any]:
            return {
                "n": len(rows),
                "object": float(np.mean([r["object_recall"] for r in rows])),
                "noun": float(np.mean([r["noun_recall"] for r in rows])),
            }

        results["object_recall"] = {
            **means(recalled),
            "by_category": {k: means(v) for k, v in sorted(by_category.items())},
        }
    graded = [row["rubric"] for row in scores if "rubric" in row]
    if graded:
        results["rubric"] = {}
        for criterion in graded[0]:
            values = [g[criterion] / 2 for g in graded if g.get(criterion) is not None]
            summary = _summary(values)
            results["rubric"][criterion] = {
                "n": summary["n"],
                "mean": None if not values else 2 * summary["accuracy"],
                "ci95": [2 * bound for bound in summary["ci95"]],
            }
    for group, buckets in list(results["groups"].items()):
        kept = {key: summary for key, summary in buckets.items() if summary["n"] >= min_group_size}
        if kept:
            results["groups"][group] = kept
        else:
            del results["groups"][group]
    results.update(summarise_retrieval(scores))
    results["min_group_size"] = min_group_size
    results["letters"] = {
        "chosen": dict(sorted(Counter(row["chosen"] for row in scored if "chosen" in row).items())),
        "gold": dict(
            sorted(
                Counter(LETTERS[int(by_id[row["sample_id"]].answer)] for row in scored if row["mcq"]).items()
            )
        ),
    }
    return results
