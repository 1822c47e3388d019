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
import platform
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from vqakit.benchmarks import load_benchmark
from vqakit.files import write_text_atomic
from vqakit.methods import get_method
from vqakit.prompts import prompt_hash, prompt_names
from vqakit.report import write_report
from vqakit.runner._config import EvalConfig, identity
from vqakit.runner._engines import run_local, run_ray
from vqakit.runner._second_pass import judge_run
from vqakit.runs import CONFIG, JUDGMENTS, MANIFEST, PREDICTIONS, RESULTS, SCORES, JudgmentLog, PredictionLog
from vqakit.schema import Benchmark, Prediction, Protocol
from vqakit.scoring import length_bucket, score_sample, summarise


class RunConfigError(Exception):
    """The run folder holds a run with a different configuration."""


@dataclass
class RunOutcome:
    folder: Path
    finished_before: int  # predictions found when the run started
    ran: int  # predictions added by this call
    results: dict[str, Any]


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


def run_protocol(config: EvalConfig, benchmark: Benchmark) -> Protocol:
    """The benchmark's protocol with the run's overrides."""
    overrides = {"frames": config.frames, "short_side": config.short_side, "prompt": config.prompt}
    return benchmark.card.protocol.model_copy(update={k: v for k, v in overrides.items() if v is not None})


def run_eval(
    config: EvalConfig,
    out: str | Path,
    *,
    new_run: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunOutcome:
    """Run `config` into folder `out` (resuming what is there), then score it."""
    benchmark = load_benchmark(config.bench)
    protocol = run_protocol(config, benchmark)
    method = get_method(config.method)  # an unknown method, bad options or an unusable benchmark
    options = method.parse_options(config.method_args)  # fail before any folder is written
    if method.preflight is not None:
        method.preflight(benchmark, options)
    folder = Path(out)
    saved = {
        **config.model_dump(mode="json"),
        "method_args": options.model_dump(mode="json"),
        "protocol": protocol.model_dump(),
        "benchmark_hash": benchmark_hash(benchmark),
    }
    if new_run and (folder / CONFIG).exists():
        folder = _fresh_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _check_or_write_config(folder, saved)
    manifest = {
        "versions": _versions(),
        "benchmark": str(benchmark.root),
        "benchmark_hash": saved["benchmark_hash"],
        "shown": method.shown(options, protocol),
        "prompt_hashes": {name: prompt_hash(name) for name in prompt_names()},
    }
    write_text_atomic(folder / MANIFEST, json.dumps(manifest, indent=1) + "\n")

    samples = benchmark.samples[: config.limit] if config.limit else benchmark.samples
    log = PredictionLog(folder / PREDICTIONS)
    finished_before = sum(1 for s in samples if s.id in log.finished)
    todo = [s for s in samples if s.id not in log.finished]
    done = finished_before

    def record(prediction: Prediction) -> None:
        nonlocal done
        log.append(prediction)
        done += 1
        if on_progress:
            on_progress(done, len(samples))

    try:
        if config.engine == "ray":
            run_ray(todo, config, benchmark, protocol, record)
        elif config.engine == "local":
            run_local(todo, config, benchmark, protocol, record)
        else:
            raise ValueError(f"unknown engine {config.engine!r}: use local or ray")
    finally:
        log.close()
    judgments = JudgmentLog(folder / JUDGMENTS)
    if config.judges:
        asyncio.run(judge_run(config.judges, samples, log.finished, judgments, config.concurrency))
    results = write_scores(folder, benchmark, samples, log.finished, judgments.by_sample(), config.group_by)
    return RunOutcome(folder, finished_before, len(todo), results)


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
) -> dict:
    """Score every finished sample into scores.jsonl, results.json and report.html."""
    from vqakit.scoring import default_groups

    judgments = judgments or {}
    rows = [
        score_sample(sample, predictions[sample.id], judgments.get(sample.id))
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
    )
    results["benchmark"] = benchmark.card.name
    write_text_atomic(folder / RESULTS, json.dumps(results, indent=1) + "\n")
    write_report(folder, benchmark)
    return results
