"""Run a method over a benchmark into a run folder that survives being killed at any moment.

The folder's files are described in `vqakit.runs`. Resume: the same command on the same folder
skips samples already in predictions.jsonl. A line cut short by a kill is removed by the next
append (it is the only line that can be partial, since each line is written with one call and
synced); a complete line that cannot be read stops the run before anything is written
(`BadLogLines`), unless it is set aside on request (`set_aside_bad_lines`). A
changed config is refused with a diff of the two configs unless `new_run=True`, which starts a
fresh folder beside it. Everything a run needs (method, options, judges) is checked before the
folder is written.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.files import BadLogLines
from vqakit.methods import FrameStats
from vqakit.runner._checks import CheckedRun, check_run
from vqakit.runner._config import EvalConfig
from vqakit.runner._endpoints import check_endpoints
from vqakit.runner._engines import EndpointStopped, run_local, run_stopping
from vqakit.runner._estimate import check_request_limits
from vqakit.runner._lock import RunLock
from vqakit.runner._ray_engine import run_ray
from vqakit.runner._run_files import write_run_files
from vqakit.runner._second_pass import judge_run
from vqakit.runs import (
    CONFIG,
    JUDGMENTS,
    PREDICTIONS,
    RESULTS,
    JudgmentLog,
    PredictionLog,
    check_run_out,
    raise_bad_logs,
    read_predictions,
    run_log_problems,
    set_aside_run_logs,
)
from vqakit.schema import NOT_APPLICABLE, Benchmark, Prediction
from vqakit.scoring import (
    use_benchmark_root,
    use_reasoning_source,
)


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGINT) stopped a run: every answer finished before it is kept in the folder,
    and the same command resumes from them."""

    def __init__(self, folder: Path, kept: int) -> None:
        super().__init__(f"interrupted: {kept} answers kept; rerun the same command to resume")
        self.folder, self.kept = folder, kept


class RunStopped(Exception):
    """An endpoint's last requests all failed the same way (a server down or gone wrong during
    the run): the run stopped instead of failing every sample, keeping every answer finished
    before it; the same command resumes."""

    def __init__(self, folder: Path, kept: int, why: str) -> None:
        super().__init__(
            f"stopped: {why}; {kept} answers kept in {folder}; fix the server or the model spec and "
            "rerun the same command to resume"
        )
        self.folder, self.kept = folder, kept


@dataclass(frozen=True)
class RunProgress:
    """How far a run is: samples with an outcome of `total`, of which `errors` failed and
    `not_applicable` were skipped by the method (not failures)."""

    done: int
    total: int
    errors: int = 0
    not_applicable: int = 0


@dataclass
class RunOutcome:
    folder: Path
    finished_before: int  # predictions found when the run started
    ran: int  # predictions added by this call
    results: dict[str, Any]
    judgments_pending: int = 0  # judgments waiting on a provider batch (`judge_batch_wait=False`)
    frames: FrameStats | None = None  # how the frames were had (local engine)
    unused_judges: list[str] = field(default_factory=list)  # given, and no sample needed them


def _fresh_folder(folder: Path) -> Path:
    number = 2
    while (candidate := folder.with_name(f"{folder.name}-{number}")).exists():
        number += 1
    return candidate


def _redacted(prediction: Prediction) -> Prediction:
    """No secret reaches the run folder: none a server echoed into an error (key shapes too),
    and no known key value anywhere in the prediction (its prompt, model, trace...)."""
    from vqakit.models import known_secrets, redact_record, redact_secrets

    if prediction.error is not None:
        error = prediction.error.model_copy(update={"message": redact_secrets(prediction.error.message)})
        prediction = prediction.model_copy(update={"error": error})
    secrets = known_secrets()
    if secrets and any(secret in prediction.model_dump_json() for secret in secrets):
        prediction = Prediction.model_validate(redact_record(prediction.model_dump(mode="json")))
    return prediction


def run_eval(
    config: EvalConfig,
    out: str | Path,
    *,
    new_run: bool = False,
    on_progress: Callable[[RunProgress], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    allow_no_frames: bool = False,
    benchmark: Benchmark | None = None,
    set_aside_bad_lines: bool = False,
    preflight: bool = False,
) -> RunOutcome:
    """Run `config` into folder `out` (resuming what is there, retrying samples that ended in an
    error unless `config.keep_errors`), then score it. Everything is checked before the folder
    is written (`allow_no_frames`: see `check_run`): `out` must be new, empty or a run folder
    (`runs.check_run_out`), and the run's logs readable (`BadLogLines` naming each line that is
    not, unless `set_aside_bad_lines` moves them into quarantine files first, each move told to
    `on_note`). `on_progress(RunProgress)` follows the samples; `on_note` hears how judges'
    batches go. `benchmark`: `config.bench` already loaded (reading a large benchmark takes
    seconds). `preflight`: check that each model's endpoint answers before the folder is written
    (`check_endpoints`; notes go to `on_note`). Ctrl-C raises `RunInterrupted`, and an endpoint
    whose requests keep failing `RunStopped`, with what was finished kept; the folder's lock is
    released and its file removed however the run ends."""
    benchmark = benchmark or load_benchmark(config.bench)
    folder = Path(out)
    check_run_out(folder, benchmark.root)
    checked = check_run(config, benchmark, allow_no_frames=allow_no_frames)
    check_request_limits(config, benchmark, checked)  # before any file is written or request sent
    if preflight:
        for note in check_endpoints([config]):
            if on_note:
                on_note(note)
    if new_run and (folder / CONFIG).exists():
        folder = _fresh_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with RunLock(folder):
        for moved in set_aside_run_logs(folder) if set_aside_bad_lines else []:
            if on_note:
                on_note(str(moved))
        # every log checked before anything is written; predictions.jsonl as it is read (once:
        # a resumed run of a million samples reads half a million lines)
        bad = run_log_problems(folder, but={PREDICTIONS})
        samples = benchmark.samples[: config.limit] if config.limit else benchmark.samples
        log = None
        try:
            log = _prediction_log(folder, samples, config)
        except BadLogLines as error:
            bad.append(error)
        raise_bad_logs(bad)
        assert log is not None
        config = write_run_files(config, checked, benchmark, folder)
        log.create()
        return _run_locked(config, checked, benchmark, folder, samples, log, on_progress, on_note)


def open_run(config: EvalConfig, out: str | Path) -> CheckedRun:
    """Check a run and write its config.yaml and manifest.json into `out` without running its
    method, for runs whose predictions come from elsewhere (a person answering in vqakit studio);
    an existing run with another configuration is refused (RunConfigError), an `out` that is
    no run folder and not empty too (`runs.check_run_out`)."""
    benchmark = load_benchmark(config.bench)
    folder = Path(out)
    check_run_out(folder, benchmark.root)
    checked = check_run(config, benchmark)
    folder.mkdir(parents=True, exist_ok=True)
    with RunLock(folder):
        write_run_files(config, checked, benchmark, folder)
    return checked


def _run_locked(
    config: EvalConfig,
    checked: CheckedRun,
    benchmark: Benchmark,
    folder: Path,
    samples: Any,
    log: PredictionLog,
    on_progress: Callable[[RunProgress], None] | None,
    on_note: Callable[[str], None] | None = None,
) -> RunOutcome:
    try:
        return _run_logged(config, checked, benchmark, folder, samples, log, on_progress, on_note)
    except KeyboardInterrupt:
        raise RunInterrupted(folder, log.done_count(samples)) from None
    except EndpointStopped as stopped:
        log.close()
        raise RunStopped(folder, log.done_count(samples), str(stopped)) from None
    finally:
        log.close()


def _prediction_log(folder: Path, samples: Any, config: EvalConfig) -> PredictionLog:
    """The run's predictions.jsonl, keeping only each sample's outcome: a benchmark held in memory
    (a list) by id, a large one read from its file (`schema.SampleFile`) by position, one byte a
    sample however many (NumPy, which a run of a small benchmark does not import before its
    first request). Every line is checked as it is read (`BadLogLines`); the file is not made
    here (`PredictionLog.create`)."""
    retry = not config.keep_errors
    if isinstance(samples, list):
        return PredictionLog(folder / PREDICTIONS, retry_errors=retry, compact=True, create=False)
    from vqakit.schema import sample_keys

    return PredictionLog(folder / PREDICTIONS, retry_errors=retry, keys=sample_keys(samples), create=False)


def _kind(prediction: Prediction) -> tuple[int, int]:
    """(1, 0) for an error, (0, 1) for a sample the method does not apply to, else (0, 0)."""
    if prediction.error is None:
        return 0, 0
    return (0, 1) if prediction.error.type == NOT_APPLICABLE else (1, 0)


def _run_logged(
    config: EvalConfig,
    checked: CheckedRun,
    benchmark: Benchmark,
    folder: Path,
    samples: list,
    log: PredictionLog,
    on_progress: Callable[[RunProgress], None] | None,
    on_note: Callable[[str], None] | None,
) -> RunOutcome:
    todo, finished_before, skipped, errors = log.to_resume(samples)
    done = finished_before
    started = time.monotonic()
    judged_before = _size(folder / JUDGMENTS)

    def record(predictions: list[Prediction]) -> None:
        nonlocal done, errors, skipped
        for prediction in log.append_many([_redacted(p) for p in predictions]):
            done += 1
            failed, not_applicable = _kind(prediction)
            errors, skipped = errors + failed, skipped + not_applicable
        if on_progress:
            on_progress(RunProgress(done, len(samples), errors, skipped))

    if on_progress:
        on_progress(RunProgress(done, len(samples), errors, skipped))
    engine = run_ray if config.engine == "ray" else run_local
    frames = engine(todo, config, benchmark, checked.protocol, folder, record)
    log.close()
    # scoring's and the judges' imports come after the requests
    from vqakit.runner._judge_batch import judge_run_batched, uses_batches
    from vqakit.runner._scores import write_scores

    finished = read_predictions(folder / PREDICTIONS)  # read as used: the run kept only outcomes
    frame_totals = _frame_totals(folder, frames if todo else None)  # before results.json is rewritten
    with use_reasoning_source(config.reasoning_source), use_benchmark_root(benchmark.root):
        judgments = JudgmentLog(folder / JUDGMENTS, retry_errors=not config.keep_errors)
        pending = 0
        if uses_batches(config, folder):
            pending = asyncio.run(judge_run_batched(config, samples, finished, judgments, folder, on_note))
        elif config.judges:
            specs, settings, limits = config.judges, config.judge_args, config.time_limits()
            run_stopping(judge_run(specs, samples, finished, judgments, config.concurrency, settings, limits))
        results = write_scores(
            folder,
            benchmark,
            samples,
            finished,
            judgments.by_sample(),
            config.group_by,
            errors_as_wrong=config.errors_as_wrong,
            wall_s=_wall_time(
                folder, time.monotonic() - started, bool(todo) or _size(folder / JUDGMENTS) != judged_before
            ),
            judgments_pending=pending,
            judges=tuple(config.judges),
            frames=frame_totals,
        )
    graded = {kind for kind, _ in judgments.records}
    unused = [name for name in config.judges if name not in graded] if not pending else []
    return RunOutcome(folder, finished_before, len(todo), results, pending, frames, unused)


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else 0


def _frame_totals(folder: Path, frames: FrameStats | None) -> dict[str, int] | None:
    """results.json `frames`: how the evals on this folder that ran samples had their frames
    (decoded, decode jobs, read from the frame store), summed; None where no engine counted them."""
    try:
        earlier = json.loads((folder / RESULTS).read_text(encoding="utf-8")).get("frames") or {}
    except (OSError, ValueError):
        earlier = {}
    if frames is None:
        return earlier or None
    now = asdict(frames)
    return {key: now[key] + int(earlier.get(key) or 0) for key in now}


def _wall_time(folder: Path, elapsed: float, worked: bool) -> float | None:
    """The wall time of the evals on this folder that did work (ran samples or judges), summed:
    a resume with nothing left to do keeps the earlier total instead of showing ~0 s."""
    try:
        earlier = (json.loads((folder / RESULTS).read_text(encoding="utf-8")).get("usage") or {}).get(
            "wall_s"
        )
    except (OSError, ValueError):
        earlier = None
    if not worked:
        return earlier if earlier is not None else elapsed
    return elapsed + (earlier or 0.0)
