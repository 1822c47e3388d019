"""Run a method over a benchmark into a run folder that survives being killed at any moment.

Run folder:
    config.yaml        everything needed to rerun (and what a resumed run must match)
    manifest.json      package versions, prompt hashes, benchmark hash
    predictions.jsonl  one line per finished sample, appended, flushed and fsynced at once
    scores.jsonl       per-sample scores (rewritten from predictions at the end)
    results.json       accuracy overall and per group with bootstrap intervals, letter counts
    judgments.jsonl    second passes, when asked: a judge's yes/no on open-ended answers,
                       a model's reading of MCQ replies the rules abstained on (raw replies kept)
    report.html        the same for people, with a sample browser (vqakit.report)

Resume: the same command on the same folder skips samples already in predictions.jsonl. A
line cut short by a kill is dropped on restart (it is the only line that can be partial,
since each line is written with one call and synced). A changed config is refused with a
diff of the two configs unless `new_run=True`, which starts a fresh folder beside it.
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

from vqakit._jsonl import append_synced, complete_lines
from vqakit.benchmarks import load_benchmark
from vqakit.methods import get_method
from vqakit.prompts import prompt_hash, prompt_names
from vqakit.report import write_report
from vqakit.runner._config import RESUMABLE_FIELDS, EvalConfig
from vqakit.runner._engines import run_local, run_ray
from vqakit.schema import Benchmark, Prediction
from vqakit.scoring import DEFAULT_GROUPS, length_bucket, score_sample, summarise


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


class JudgmentLog:
    """Append-only judgments.jsonl of second passes (one per sample and kind), safe against kills."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        for record in complete_lines(path, json.loads):
            self.records.setdefault((record["kind"], record["sample_id"]), record)

    def has(self, kind: str, sample_id: str) -> bool:
        return (kind, sample_id) in self.records

    def append(self, record: dict[str, Any]) -> None:
        key = (record["kind"], record["sample_id"])
        if key in self.records:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            append_synced(handle, json.dumps(record))
        self.records[key] = record

    def by_sample(self) -> dict[str, dict[str, dict[str, Any]]]:
        """{sample id: {kind: record}}"""
        grouped: dict[str, dict[str, dict[str, Any]]] = {}
        for (kind, sample_id), record in self.records.items():
            grouped.setdefault(sample_id, {})[kind] = record
        return grouped


class PredictionLog:
    """Append-only predictions.jsonl that never loses or duplicates a finished sample."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.finished: dict[str, Prediction] = {}
        for prediction in complete_lines(path, Prediction.model_validate_json):
            self.finished.setdefault(prediction.sample_id, prediction)
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def append(self, prediction: Prediction) -> None:
        if prediction.sample_id in self.finished:
            return
        append_synced(self._handle, prediction.model_dump_json())
        self.finished[prediction.sample_id] = prediction

    def close(self) -> None:
        self._handle.close()


def _identity(config: dict[str, Any]) -> dict[str, Any]:
    """What must match to resume. Options added to vqakit after a run was saved take their
    defaults, so a run folder from an earlier version resumes when those options are not used."""
    defaults = {
        name: field.default
        for name, field in EvalConfig.model_fields.items()
        if not field.is_required() and name not in config
    }
    merged = {**defaults, **config}
    return {
        key: list(value) if isinstance(value, tuple) else value
        for key, value in merged.items()
        if key not in RESUMABLE_FIELDS
    }


def _check_or_write_config(folder: Path, config: dict[str, Any]) -> None:
    path = folder / "config.yaml"
    if path.exists():
        saved = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        if _identity(saved) != _identity(config):
            diff = "\n".join(
                difflib.unified_diff(
                    yaml.safe_dump(_identity(saved), sort_keys=True).splitlines(),
                    yaml.safe_dump(_identity(config), sort_keys=True).splitlines(),
                    "saved config.yaml",
                    "this run",
                    lineterm="",
                )
            )
            raise RunConfigError(
                f"{folder} holds a run with another configuration; pass --new-run to start a fresh one "
                f"beside it, or choose another --out.\n{diff}"
            )
    path.write_text(yaml.safe_dump(config, sort_keys=False), encoding="utf-8")


def _fresh_folder(folder: Path) -> Path:
    number = 2
    while (candidate := folder.with_name(f"{folder.name}-{number}")).exists():
        number += 1
    return candidate


def run_eval(
    config: EvalConfig,
    out: str | Path,
    *,
    new_run: bool = False,
    on_progress: Callable[[int, int], None] | None = None,
) -> RunOutcome:
    """Run `config` into folder `out` (resuming what is there), then score it."""
    benchmark = load_benchmark(config.bench)
    protocol = benchmark.card.protocol.model_copy(
        update={
            key: value
            for key, value in (
                ("frames", config.frames),
                ("short_side", config.short_side),
                ("prompt", config.prompt),
            )
            if value is not None
        }
    )
    get_method(config.method)  # an unknown method fails before any folder is written
    folder = Path(out)
    saved = {
        **config.model_dump(),
        "protocol": protocol.model_dump(),
        "benchmark_hash": benchmark_hash(benchmark),
    }
    if new_run and (folder / "config.yaml").exists():
        folder = _fresh_folder(folder)
    folder.mkdir(parents=True, exist_ok=True)
    _check_or_write_config(folder, saved)
    manifest = {
        "versions": _versions(),
        "benchmark": str(benchmark.root),
        "benchmark_hash": saved["benchmark_hash"],
        "prompt_hashes": {name: prompt_hash(name) for name in prompt_names()},
    }
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")

    samples = benchmark.samples[: config.limit] if config.limit else benchmark.samples
    log = PredictionLog(folder / "predictions.jsonl")
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
            run_ray(todo, config, benchmark.root, protocol, record)
        elif config.engine == "local":
            run_local(todo, config, benchmark.root, protocol, record)
        else:
            raise ValueError(f"unknown engine {config.engine!r}: use local or ray")
    finally:
        log.close()
    judgments = JudgmentLog(folder / "judgments.jsonl")
    if config.judge or config.extractor or config.rubric_judge or config.sufficiency_judge:
        asyncio.run(_second_pass(config, samples, log.finished, judgments))
    results = write_scores(folder, benchmark, samples, log.finished, judgments.by_sample(), config.group_by)
    return RunOutcome(folder, finished_before, len(todo), results)


async def _second_pass(
    config: EvalConfig, samples: list, predictions: dict[str, Prediction], judgments: JudgmentLog
) -> None:
    """Judge open-ended replies, re-read abstained MCQ replies, grade reasoning against the
    reference trace and judge whether the gold clip's description holds the question's event,
    with models, resumably."""
    from vqakit.models import Model
    from vqakit.scoring import extract_with_model, gold_caption, judge_open, judge_sufficiency, rubric_judge

    judge = Model(config.judge, concurrency=config.concurrency) if config.judge else None
    extractor = Model(config.extractor, concurrency=config.concurrency) if config.extractor else None
    rubric = Model(config.rubric_judge, concurrency=config.concurrency) if config.rubric_judge else None
    sufficiency = (
        Model(config.sufficiency_judge, concurrency=config.concurrency) if config.sufficiency_judge else None
    )

    async def one(sample: Any) -> None:
        prediction = predictions.get(sample.id)
        if prediction is None or prediction.error is not None or prediction.reply is None:
            return
        if not sample.is_mcq and judge is not None and not judgments.has("judge", sample.id):
            judgments.append(await judge_open(judge, sample, prediction))
        wants_extraction = sample.is_mcq and prediction.choice is None and extractor is not None
        if wants_extraction and not judgments.has("extract", sample.id):
            judgments.append(await extract_with_model(extractor, sample, prediction))
        if sample.reasoning and rubric is not None and not judgments.has("rubric", sample.id):
            judgments.append(await rubric_judge(rubric, sample, prediction))
        wants_sufficiency = sufficiency is not None and gold_caption(sample, prediction) is not None
        if wants_sufficiency and not judgments.has("sufficiency", sample.id):
            judgments.append(await judge_sufficiency(sufficiency, sample, prediction))

    try:
        await asyncio.gather(*(one(sample) for sample in samples))
    finally:
        for model in (judge, extractor, rubric, sufficiency):
            if model is not None:
                await model.aclose()


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
    judgments = judgments or {}
    rows = [
        score_sample(sample, predictions[sample.id], judgments.get(sample.id))
        for sample in samples
        if sample.id in predictions
    ]
    with open(folder / "scores.jsonl", "w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    lengths = {
        sample.id: length_bucket(seconds)
        for sample in samples
        if (seconds := _video_length(benchmark, sample)) is not None
    }
    groups = tuple(dict.fromkeys((*DEFAULT_GROUPS, *group_by)))
    results = summarise(
        [s for s in samples if s.id in predictions],
        rows,
        groups,
        extra_groups={"video_length": lengths},
        min_group_size=benchmark.card.protocol.min_group_size,
    )
    results["benchmark"] = benchmark.card.name
    (folder / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    write_report(folder, benchmark)
    return results
