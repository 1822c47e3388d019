"""Scoring a run folder's finished samples: scores.jsonl, results.json and the report, from the
predictions and judgments it holds (what `run_eval`, `vqakit score` and `vqakit report` end
with)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import IO, Any

import numpy as np

from vqakit.files import set_aside_counts, write_atomic, write_text_atomic
from vqakit.report import SamplePages, write_report
from vqakit.runner._second_pass import not_judged
from vqakit.runs import RESULTS, SCORES, JsonlRows, RunFolder, paired, with_records
from vqakit.schema import Benchmark, Prediction, Sample, select_samples
from vqakit.scoring import ResultsTally, UsageTally, length_bucket, length_buckets, score_sample


def write_scores(
    folder: Path,
    benchmark: Benchmark,
    samples: Sequence[Sample],
    predictions: Mapping[str, Prediction],
    judgments: Mapping[str, dict[str, dict[str, Any]]] | None = None,
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
    by log (`set_aside`).

    One pass over the samples in order, in bounded memory whatever their number: each sample's
    prediction and judgments are looked up (`predictions` may be read from disk as used, see
    `vqakit.runs.PredictionIndex`), its score row written to scores.jsonl and counted
    (`scoring.ResultsTally`), and its card added to the sample pages (`report.SamplePages`);
    judges' and registered metrics' summaries then read the rows back."""
    from vqakit.scoring import default_groups

    judgments = judgments or {}
    tally = ResultsTally(
        tuple(dict.fromkeys((*default_groups(), *benchmark.card.groups, *group_by))),
        ("video_length",),
        {"video_length": length_buckets()},
    )
    usage = UsageTally()
    not_graded: Counter[str] = Counter()
    scored = with_records(samples, predictions)
    pages = SamplePages(RunFolder(folder), benchmark, int(np.count_nonzero(scored)))
    durations: dict[str, float | None] = {}

    def score_all(out: IO[bytes]) -> None:
        for sample, prediction in paired(select_samples(samples, scored), predictions):
            records = judgments.get(sample.id)
            missing = not_judged(judges, sample, prediction, records or {})
            not_graded.update(missing)
            row = score_sample(sample, prediction, records, errors_as_wrong=errors_as_wrong, missing=missing)
            out.write(json.dumps(row).encode() + b"\n")
            seconds = _video_length(benchmark, sample, durations)
            tally.add(sample, row, {} if seconds is None else {"video_length": length_bucket(seconds)})
            usage.add(prediction)
            pages.add(sample, prediction, row, records or {})

    write_atomic(folder / SCORES, score_all)  # `out` is buffered
    pages.finish()
    results = tally.results(
        select_samples(samples, scored),
        JsonlRows(folder / SCORES),
        benchmark.card.protocol.min_group_size,
        benchmark.card.official,
    )
    results["usage"] = usage.totals(sum(len(records) for records in judgments.values()), wall_s)
    results["benchmark"] = benchmark.card.name
    if judgments_pending:
        results["judgments_pending"] = judgments_pending
    if not_graded:
        results["judgments_missing"] = dict(sorted(not_graded.items()))
    if frames:
        results["frames"] = frames
    set_aside = set_aside_counts(folder)
    if set_aside:  # lines of the logs moved into quarantine files (`--set-aside-bad-lines`)
        results["set_aside"] = set_aside
    write_text_atomic(folder / RESULTS, json.dumps(results, indent=1) + "\n")
    write_report(folder, benchmark, pages)
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
