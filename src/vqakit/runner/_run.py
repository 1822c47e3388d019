"""Run a method over a benchmark into a run folder that survives being killed at any moment.

The folder's files are described in `vqakit.runs`. Resume: the same command on the same folder
skips samples already in predictions.jsonl. A line cut short by a kill is dropped on restart (it
is the only line that can be partial, since each line is written with one call and synced). A
changed config is refused with a diff of the two configs unless `new_run=True`, which starts a
fresh folder beside it. Everything a run needs (method, options, judges) is checked before the
folder is written.
"""

from __future__ import annotations

import asyncio
import difflib
import hashlib
import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from vqakit.benchmarks import BUILT_IN_NAMES, load_benchmark
from vqakit.files import write_text_atomic
from vqakit.methods import FrameStats
from vqakit.prompts import is_file_prompt, prompt_hash, prompt_names
from vqakit.report import write_report
from vqakit.runner._checks import CheckedRun, check_run
from vqakit.runner._config import EvalConfig, identity
from vqakit.runner._engines import run_local
from vqakit.runner._judge_batch import judge_run_batched, uses_batches
from vqakit.runner._lock import RunLock
from vqakit.runner._ray_engine import run_ray
from vqakit.runner._second_pass import judge_run
from vqakit.runs import (
    CONFIG,
    JUDGMENTS,
    MANIFEST,
    PREDICTIONS,
    RESULTS,
    SCORES,
    JudgmentLog,
    PredictionLog,
    read_predictions,
)
from vqakit.schema import Benchmark, Prediction
from vqakit.scoring import (
    length_bucket,
    length_buckets,
    score_sample,
    summarise,
    usage_totals,
    use_benchmark_root,
    use_reasoning_source,
)


class RunConfigError(Exception):
    """The run folder holds a run with a different configuration."""


@dataclass
class RunOutcome:
    folder: Path
    finished_before: int  # predictions found when the run started
    ran: int  # predictions added by this call
    results: dict[str, Any]
    judgments_pending: int = 0  # judgments waiting on a provider batch (`judge_batch_wait=False`)
    frames: FrameStats | None = None  # how the frames were had (local engine)


def benchmark_hash(benchmark: Benchmark) -> str:
    digest = hashlib.sha256()
    for name in ("benchmark.yaml", "samples.jsonl", "corpus/clips.jsonl", "corpus/passages.jsonl"):
        path = benchmark.root / name
        if path.is_file():
            digest.update(name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in ("vqakit", "numpy", "av", "pydantic", "pillow", "aiohttp", "torch", "transformers"):
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def _check_or_write_config(folder: Path, config: dict[str, Any]) -> None:
    path = folder / CONFIG
    if path.exists():
        saved = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if identity(saved) != identity(config):
            diff = "\n".join(
                difflib.unified_diff(
                    yaml.safe_dump(identity(saved), sort_keys=True).splitlines(),
                    yaml.safe_dump(identity(config), sort_keys=True).splitlines(),
                    "saved config.yaml",
                    "this run",
                    lineterm="",
                )
            )
            raise RunConfigError(
                f"{folder} holds a run with another configuration; pass --new-run to start a fresh one "
                f"beside it, or choose another --out.\n{diff}"
            )
    write_text_atomic(path, yaml.safe_dump(config, sort_keys=False))


def _fresh_folder(folder: Path) -> Path:
    number = 2
    while (candidate := folder.with_name(f"{folder.name}-{number}")).exists():
        number += 1
    return candidate


def _saved_bench(config: EvalConfig, benchmark: Benchmark, folder: Path) -> str:
    """How config.yaml names the benchmark: a shipped one by name, a folder by its path relative
    to the run folder (so the run resumes, and `compare` reads it, from any working directory)."""
    if config.bench in BUILT_IN_NAMES and not Path(config.bench).is_dir():
        return config.bench
    return os.path.relpath(benchmark.root.resolve(), folder.resolve())


def _redacted(prediction: Prediction) -> Prediction:
    """No secret a server echoed into an error reaches the run folder."""
    from vqakit.models import redact_secrets

    if prediction.error is None:
        return prediction
    error = prediction.error.model_copy(update={"message": redact_secrets(prediction.error.message)})
    return prediction.model_copy(update={"error": error})


def _images_line(config: EvalConfig) -> dict[str, Any]:
    """How images reach the model: JPEG encoder, quality, subsampling and longest side (or
    pixels, for local models), and whether the frame store kept them."""
    from vqakit.models import sent_encoding

    return {"sent_as": sent_encoding(config.model) or "pixels", "frame_store": config.frame_cache}


def run_eval(
    config: EvalConfig,
    out: str | Path,
    *,
    new_run: bool = False,
    on_progress: Callable[[int, int, int], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    benchmark: Benchmark | None = None,
) -> RunOutcome:
    """Run `config` into folder `out` (resuming what is there, retrying samples that ended in an
    error unless `config.keep_errors`), then score it. Everything is checked before the folder
    is written. `on_progress(done, total, errors)` follows the samples; `on_note` hears how
    judges' batches go. `benchmark`: `config.bench` already loaded (reading a large benchmark
    takes seconds)."""
    benchmark = benchmark or load_benchmark(config.bench)
    checked = check_run(config, benchmark)
    folder = Path(out)
    if new_run and (folder / CONFIG).exists():
        folder = _fresh_folder(folder)
    saved = {
        **config.model_dump(mode="json"),
        "bench": _saved_bench(config, benchmark, folder),
        "method_args": checked.options.model_dump(mode="json"),
        "protocol": checked.protocol.model_dump(),
        "benchmark_hash": benchmark_hash(benchmark),
    }
    folder.mkdir(parents=True, exist_ok=True)
    with RunLock(folder):
        _check_or_write_config(folder, saved)
        prompts = {name: prompt_hash(name) for name in prompt_names()}
        if is_file_prompt(checked.protocol.prompt):
            prompts[checked.protocol.prompt] = prompt_hash(checked.protocol.prompt, benchmark.root)
        manifest = {
            "versions": _versions(),
            "benchmark": str(benchmark.root),
            "benchmark_hash": saved["benchmark_hash"],
            "shown": checked.method.shown(checked.options, checked.protocol),
            "prompt_hashes": prompts,
            "images": _images_line(config),
        }
        write_text_atomic(folder / MANIFEST, json.dumps(manifest, indent=1) + "\n")
        return _run_locked(config, checked, benchmark, folder, on_progress, on_note)


def _run_locked(
    config: EvalConfig,
    checked: CheckedRun,
    benchmark: Benchmark,
    folder: Path,
    on_progress: Callable[[int, int, int], None] | None,
    on_note: Callable[[str], None] | None = None,
) -> RunOutcome:
    samples = benchmark.samples[: config.limit] if config.limit else benchmark.samples
    log = PredictionLog(folder / PREDICTIONS, retry_errors=not config.keep_errors, compact=True)
    finished_before = sum(1 for s in samples if log.done(s.id))
    todo = [s for s in samples if not log.done(s.id)]
    done, errors = finished_before, sum(1 for s in samples if log.done(s.id) and log.failed(s.id))
    started = time.monotonic()

    def record(predictions: list[Prediction]) -> None:
        nonlocal done, errors
        for prediction in log.append_many([_redacted(p) for p in predictions]):
            done += 1
            errors += prediction.error is not None
        if on_progress:
            on_progress(done, len(samples), errors)

    if on_progress:
        on_progress(done, len(samples), errors)
    try:
        engine = run_ray if config.engine == "ray" else run_local
        frames = engine(todo, config, benchmark, checked.protocol, folder, record)
    finally:
        log.close()
    finished = read_predictions(folder / PREDICTIONS)  # the run kept only outcomes in memory
    with use_reasoning_source(config.reasoning_source), use_benchmark_root(benchmark.root):
        judgments = JudgmentLog(folder / JUDGMENTS, retry_errors=not config.keep_errors)
        pending = 0
        if uses_batches(config, folder):
            pending = asyncio.run(judge_run_batched(config, samples, finished, judgments, folder, on_note))
        elif config.judges:
            asyncio.run(
                judge_run(config.judges, samples, finished, judgments, config.concurrency, config.judge_args)
            )
        results = write_scores(
            folder,
            benchmark,
            samples,
            finished,
            judgments.by_sample(),
            config.group_by,
            errors_as_wrong=config.errors_as_wrong,
            wall_s=time.monotonic() - started,
            judgments_pending=pending,
        )
    return RunOutcome(folder, finished_before, len(todo), results, pending, frames)


def _video_length(benchmark: Benchmark, sample: Any) -> float | None:
    """Seconds of video a sample is about: its window, else the whole first video."""
    if not sample.videos:
        return None
    ref = sample.videos[0]
    if ref.start_s is not None and ref.end_s is not None:
        return ref.end_s - ref.start_s
    duration = _duration(str(benchmark.root / ref.path))
    return None if duration is None else duration - (ref.start_s or 0.0)


@lru_cache(maxsize=4096)
def _duration(path: str) -> float | None:
    from vqakit.video import VideoError, probe

    try:
        return probe(path).duration_s
    except VideoError:
        return None


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
) -> dict:
    """Score every finished sample into scores.jsonl, results.json and report.html. Judgments
    still waiting on a batch are counted in results.json (`judgments_pending`): the scores
    leave those samples unjudged until they arrive."""
    from vqakit.scoring import default_groups

    judgments = judgments or {}
    rows = [
        score_sample(
            sample, predictions[sample.id], judgments.get(sample.id), errors_as_wrong=errors_as_wrong
        )
        for sample in samples
        if sample.id in predictions
    ]
    write_text_atomic(folder / SCORES, "".join(json.dumps(row) + "\n" for row in rows))
    lengths = {
        sample.id: length_bucket(seconds)
        for sample in samples
        if (seconds := _video_length(benchmark, sample)) is not None
    }
    results = summarise(
        [s for s in samples if s.id in predictions],
        rows,
        tuple(dict.fromkeys((*default_groups(), *group_by))),
        extra_groups={"video_length": lengths},
        min_group_size=benchmark.card.protocol.min_group_size,
        order={"video_length": length_buckets()},
    )
    results["usage"] = usage_totals(
        [predictions[s.id] for s in samples if s.id in predictions], judgments, wall_s
    )
    results["benchmark"] = benchmark.card.name
    if judgments_pending:
        results["judgments_pending"] = judgments_pending
    write_text_atomic(folder / RESULTS, json.dumps(results, indent=1) + "\n")
    write_report(folder, benchmark)
    return results
