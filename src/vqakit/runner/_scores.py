"""Scoring a run folder's finished samples: scores.jsonl, results.json and the report, from the
predictions and judgments it holds (what `run_eval`, `vqakit score` and `vqakit report` end
with)."""

from __future__ import annotations

import json
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from vqakit.files import collector_paused, set_aside_counts, write_text_atomic
from vqakit.report import write_report
from vqakit.runner._second_pass import not_judged
from vqakit.runs import RESULTS, SCORES
from vqakit.schema import Benchmark, Prediction
from vqakit.scoring import length_bucket, length_buckets, score_sample, summarise, usage_totals


@collector_paused()  # 100,000 rows and cards: the collector took a third of the time
def write_scores(
    folder: Path,
    benchmark: Benchmark,
    samples: list,
    predictions: dict[str, Prediction],
    judgments: dict[str, dict[str, dict[str, Any]]] | None = None,
    group_by: tuple[str, ...] = (),
    *,
    errors_as_wrong: bool = False,
    wall_s: float | None = None,
    judgments_pending: int = 0,
    judges: tuple[str, ...] = (),
    frames: dict[str, int] | None = None,
) -> dict:
    """Score every finished sample into scores.jsonl, results.json and report.html. `judges`
    names the run's judges: a sample one of them wants and has not graded is `not judged yet`,
    and counted in results.json (`judgments_missing`, by judge). Judgments still waiting on a
    batch are counted too (`judgments_pending`). `frames`: how the run had its frames (kept by
    whoever rescores it). Lines of the run's logs set aside into quarantine files are counted
    by log (`set_aside`)."""
    from vqakit.scoring import default_groups

    judgments = judgments or {}
    missing = {
        sample.id: not_judged(judges, sample, predictions[sample.id], judgments.get(sample.id) or {})
        for sample in samples
        if sample.id in predictions
    }
    rows = [
        score_sample(
            sample,
            predictions[sample.id],
            judgments.get(sample.id),
            errors_as_wrong=errors_as_wrong,
            missing=missing[sample.id],
        )
        for sample in samples
        if sample.id in predictions
    ]
    write_text_atomic(folder / SCORES, "".join(json.dumps(row) + "\n" for row in rows))
    durations: dict[str, float | None] = {}
    lengths = {
        sample.id: length_bucket(seconds)
        for sample in samples
        if (seconds := _video_length(benchmark, sample, durations)) is not None
    }
    results = summarise(
        [s for s in samples if s.id in predictions],
        rows,
        tuple(dict.fromkeys((*default_groups(), *benchmark.card.groups, *group_by))),
        extra_groups={"video_length": lengths},
        min_group_size=benchmark.card.protocol.min_group_size,
        order={"video_length": length_buckets()},
        official=benchmark.card.official,
    )
    results["usage"] = usage_totals(
        [predictions[s.id] for s in samples if s.id in predictions], judgments, wall_s
    )
    results["benchmark"] = benchmark.card.name
    if judgments_pending:
        results["judgments_pending"] = judgments_pending
    not_graded = Counter(name for names in missing.values() for name in names)
    if not_graded:
        results["judgments_missing"] = dict(sorted(not_graded.items()))
    if frames:
        results["frames"] = frames
    set_aside = set_aside_counts(folder)
    if set_aside:  # lines of the logs moved into quarantine files (`--set-aside-bad-lines`)
        results["set_aside"] = set_aside
    write_text_atomic(folder / RESULTS, json.dumps(results, indent=1) + "\n")
    write_report(folder, benchmark)
    return results


def _video_length(benchmark: Benchmark, sample: Any, durations: dict[str, float | None]) -> float | None:
    """Seconds of video a sample is about: its window, else the whole first video (`durations`:
    by path as the samples write it, filled as videos are met)."""
    if not sample.videos:
        return None
    ref = sample.videos[0]
    if ref.start_s is not None and ref.end_s is not None:
        return ref.end_s - ref.start_s
    if ref.path not in durations:
        durations[ref.path] = _duration(str(benchmark.root / ref.path))
    duration = durations[ref.path]
    return None if duration is None else duration - (ref.start_s or 0.0)


@lru_cache(maxsize=4096)
def _duration(path: str) -> float | None:
    from vqakit.video import VideoError, duration_s

    try:
        return duration_s(path)
    except VideoError:
        return None
