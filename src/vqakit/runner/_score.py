"""Scoring a run folder as it stands, without running its method.

`score_run` (`vqakit score`): the run's judges grade the finished predictions they have not
graded yet, then scores.jsonl, results.json and report.html are rewritten. This is how a
participant's run from `vqakit studio` is scored (its predictions come from a person, at the
person's pace), and how any run is scored again after a change of scorers.

`report_run` (`vqakit report`): the same files rewritten from what the folder holds, with no
model or judge called; a judgment that is missing stays missing (`not judged yet`, counted in
results.json's `judgments_missing`) and a failed one stays an error.

Both read the run's logs with the one log reader: a line that cannot be read refuses the run
(`BadLogLines`, naming each line), unless `set_aside_bad_lines` moves such lines into quarantine
files first (counted in results.json `set_aside`). `checked_runs` does the same for verbs that
read runs' results (`table`, `export`, `compare`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.files import BadLogLines
from vqakit.methods import MethodSetupError, get_method
from vqakit.runner._config import EvalConfig, make_config
from vqakit.runner._judge_batch import judge_run_batched, outstanding_batches, uses_batches
from vqakit.runner._lock import RunLock
from vqakit.runner._scores import write_scores
from vqakit.runner._second_pass import judge_run
from vqakit.runs import JUDGMENTS, JudgmentLog, RunFolder, RunFolderError, checked_run_logs, with_records
from vqakit.schema import Benchmark, Prediction, Sample, select_samples
from vqakit.scoring import use_benchmark_root, use_reasoning_source


def saved_config(run: RunFolder) -> EvalConfig:
    """The run's EvalConfig from its config.yaml (fields that only the saved file has, such as
    the resolved protocol and the benchmark hash, left out; the benchmark found from the run)."""
    fields = {key: value for key, value in run.config.items() if key in EvalConfig.model_fields}
    return make_config({**fields, "bench": str(run.benchmark_location())})


def score_run(
    folder: str | Path, *, on_note: Callable[[str], None] | None = None, set_aside_bad_lines: bool = False
) -> dict[str, Any]:
    """Judge and score the finished predictions of the run in `folder`; returns results.json.
    Samples without a prediction are left out (the results say how many were scored)."""
    run = RunFolder(folder)
    config = saved_config(run)
    benchmark = load_benchmark(config.bench)
    with RunLock(run.path), use_reasoning_source(config.reasoning_source), use_benchmark_root(benchmark.root):
        _read_logs(run, set_aside_bad_lines, on_note)
        predictions = run.predictions()
        samples = _with_predictions(benchmark, config, predictions)
        earlier = _earlier_results(run)
        judgments = JudgmentLog(run.path / JUDGMENTS, retry_errors=not config.keep_errors)
        pending = 0
        if uses_batches(config, run.path):
            batched = judge_run_batched(config, samples, predictions, judgments, run.path, on_note)
            pending = asyncio.run(batched)
        elif config.judges:
            specs, settings = config.judges, config.judge_args
            limits = config.time_limits()
            asyncio.run(
                judge_run(specs, samples, predictions, judgments, config.concurrency, settings, limits)
            )
        return write_scores(
            run.path,
            benchmark,
            samples,
            predictions,
            judgments.by_sample(),
            config.group_by,
            errors_as_wrong=config.errors_as_wrong,
            wall_s=(earlier.get("usage") or {}).get("wall_s"),
            judgments_pending=pending,
            judges=tuple(config.judges),
            frames=earlier.get("frames"),
        )


def _with_predictions(
    benchmark: Benchmark, config: EvalConfig, predictions: Mapping[str, Prediction]
) -> Sequence[Sample]:
    """The run's samples that have a prediction, in benchmark order (a view of a large
    benchmark's samples: none is read to find them)."""
    pool = benchmark.samples[: config.limit] if config.limit else benchmark.samples
    return select_samples(pool, with_records(pool, predictions))


def _earlier_results(run: RunFolder) -> dict[str, Any]:
    """results.json as the run left it (what rescoring keeps: wall time, frames), or {}."""
    try:
        return run.results
    except RunFolderError:  # rewritten by the caller: an unreadable one only loses those
        return {}


def method_logs(run: RunFolder) -> None:
    """Import the run's method, whose module registers the logs it keeps in the run folder
    (`register_run_log`: a participant's answers.jsonl), so that they are read like the run's
    own: a command imports a method only when it uses it. A run whose config cannot be read, or
    names no method that can be loaded, has only the run's own logs."""
    with contextlib.suppress(RunFolderError, MethodSetupError):
        name = run.config.get("method")
        if isinstance(name, str):
            get_method(name)


def _read_logs(run: RunFolder, set_aside: bool, on_note: Callable[[str], None] | None) -> None:
    method_logs(run)
    for moved in checked_run_logs(run.path, set_aside=set_aside):
        if on_note:
            on_note(str(moved))


def report_run(
    folder: str | Path, *, on_note: Callable[[str], None] | None = None, set_aside_bad_lines: bool = False
) -> dict[str, Any]:
    """Rewrite scores.jsonl, results.json, report.html and the sample pages of the run in
    `folder` from its files, calling no model or judge; returns results.json. The wall time of
    the evals that made the run, and judgments pending in batches, are kept from results.json."""
    run = RunFolder(folder)
    config = saved_config(run)
    benchmark = load_benchmark(config.bench)
    with RunLock(run.path), use_reasoning_source(config.reasoning_source), use_benchmark_root(benchmark.root):
        _read_logs(run, set_aside_bad_lines, on_note)
        predictions = run.predictions()
        samples = _with_predictions(benchmark, config, predictions)
        earlier = _earlier_results(run)
        judgments = JudgmentLog(run.path / JUDGMENTS, retry_errors=not config.keep_errors)
        pending = int(earlier.get("judgments_pending") or 0) if outstanding_batches(run.path) else 0
        return write_scores(
            run.path,
            benchmark,
            samples,
            predictions,
            judgments.by_sample(),
            config.group_by,
            errors_as_wrong=config.errors_as_wrong,
            wall_s=(earlier.get("usage") or {}).get("wall_s"),
            judgments_pending=pending,
            judges=tuple(config.judges),
            frames=earlier.get("frames"),
        )


def checked_runs(
    folders: list[str | Path],
    *,
    set_aside_bad_lines: bool = False,
    on_note: Callable[[str], None] | None = None,
) -> None:
    """For verbs that read runs' results (`table`, `export`, `compare`): each run's logs and
    scores.jsonl must read whole, or `BadLogLines` names every line that does not, in every
    run. With `set_aside_bad_lines` such a run has them moved into quarantine files and is
    reported again (`report_run`), so that its results count what was set aside."""
    bad: list[BadLogLines] = []
    for folder in folders:
        run = RunFolder(folder)
        try:
            method_logs(run)
            checked_run_logs(run.path)
            run.scores()
        except BadLogLines as error:
            if not set_aside_bad_lines:
                bad += error.each()
                continue
            report_run(run.path, on_note=on_note, set_aside_bad_lines=True)
    if bad:
        raise BadLogLines(bad[0].path, bad[0].problems, more=bad[1:], hint=bad[0].hint)
