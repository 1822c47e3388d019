"""Scores out, in the official evaluation's results shape (sshaar/MovieRecapsQA `eval/`), one
JSON line per judged question:

    {"question_idx", "video_id", "segment_id", "question_id", "question", "model_response",
     "ground_truth_answer", "claims": [...],
     "evaluations": {"factuality": {"factuality_score", "claim_evaluations": [{claim_number,
                     claim_text, label, justification}], "explanation"},
                     "coherence": {"coherence_score", ...}, "relevance": {"relevance_score", ...}},
     "aggregate_score", "aggregate_score_all_three", "metadata": {sample_id, category, modality}}

Labels are written in the official upper-case form (`PARTIALLY_SUPPORTED`). A score the run does
not have (no claims, a judge error, a judge not assigned) is the official `-1` with an `error`
saying why, which the official analysis leaves out of its means. `aggregate_score` is computed as
the official evaluation computes it: the mean of whichever scores exist (not -1), -1 when none
does. Ours, the mean of the three when all three exist, else -1, is kept beside it as
`aggregate_score_all_three` (the official analysis ignores keys it does not know).
Identifiers come from the imported answer when the run was imported, else from the sample's
metadata; `question_idx` is left out when neither knows it. Questions without an answer (a
not-applicable or failed prediction) are not written; `official_results` counts them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.schema import Prediction, Sample
from vqakit.systems.movierecapsqa.claims import CLAIMS
from vqakit.systems.movierecapsqa.official import imported_lines
from vqakit.systems.movierecapsqa.summary import MEASURES

_IDS = ("question_idx", "video_id", "segment_id", "question_id")


def _evaluation(name: str, record: dict[str, Any] | None) -> dict[str, Any]:
    key = f"{name}_score"
    if record is None:
        return {key: -1, "error": f"not judged: the run has no {name} judge"}
    verdicts = [
        {
            "claim_number": number,
            "claim_text": item["claim"],
            "label": item["label"].upper(),
            "justification": item.get("justification") or "",
        }
        for number, item in enumerate(record.get("claims") or [], start=1)
    ]
    found: dict[str, Any] = {key: record["score"] if record.get("score") is not None else -1}
    found["claim_evaluations"] = verdicts
    if record.get("explanation"):
        found["explanation"] = record["explanation"]
    if record.get("score") is None:
        found["error"] = record.get("error") or f"not scored: {record.get('status')}"
    return found


def result_line(
    sample: Sample,
    prediction: Prediction,
    records: dict[str, dict[str, Any]],
    imported: dict[str, Any] | None,
) -> dict[str, Any]:
    """One question's line in the official results shape."""
    meta = sample.metadata.model_extra or {}
    ids = {key: (imported or {}).get(key, meta.get(key)) for key in _IDS}
    evaluations = {
        name: _evaluation(name, records.get(name)) for name in ("factuality", "coherence", "relevance")
    }
    scores = [evaluations[name][f"{name}_score"] for name in MEASURES]
    given = [score for score in scores if score >= 0]
    extracted = records.get(CLAIMS) or {}
    return {
        **{key: value for key, value in ids.items() if value is not None},
        "question": sample.question,
        "model_response": prediction.reply,
        "ground_truth_answer": sample.answer_text(),
        "claims": list(extracted.get("claims") or []),
        "evaluations": evaluations,
        "aggregate_score": sum(given) / len(given) if given else -1,
        "aggregate_score_all_three": sum(scores) / len(scores) if len(given) == len(scores) else -1,
        "metadata": {
            "sample_id": sample.id,
            "category": sample.metadata.category,
            "modality": sample.metadata.modality,
        },
    }


def official_results(run: str | Path) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """(result lines, in question_idx order where known, else the benchmark's; questions left out
    by why: `no_answer` (not applicable), `failed`, `not_judged` (no claims record))."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runs import RunFolder

    folder = RunFolder(run)
    benchmark = load_benchmark(folder.benchmark_location())
    predictions, judged, imported = folder.predictions(), folder.judgments(), imported_lines(folder.path)
    lines: list[dict[str, Any]] = []
    left_out = {"no_answer": 0, "failed": 0, "not_judged": 0}
    for sample in benchmark.samples:
        prediction = predictions.get(sample.id)
        if prediction is None or (prediction.error is not None and prediction.failed_for_good):
            left_out["no_answer"] += 1
        elif prediction.error is not None:
            left_out["failed"] += 1
        elif CLAIMS not in judged.get(sample.id, {}):
            left_out["not_judged"] += 1
        else:
            lines.append(result_line(sample, prediction, judged[sample.id], imported.get(sample.id)))
    order = {id(line): i for i, line in enumerate(lines)}
    lines.sort(
        key=lambda line: (
            line.get("question_idx") is None,
            _number(line.get("question_idx")),
            order[id(line)],
        )
    )
    return lines, left_out


def _number(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def write_official_results(run: str | Path, out: str | Path) -> tuple[int, dict[str, int]]:
    """Write the official results JSONL of a run to `out`; (lines written, questions left out)."""
    lines, left_out = official_results(run)
    write_text_atomic(Path(out), "".join(json.dumps(line) + "\n" for line in lines))
    return len(lines), left_out
