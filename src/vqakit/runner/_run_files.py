"""What a run folder records of its run before it runs: config.yaml (checked against a run already
there) and manifest.json (versions, the benchmark's hash, prompts, how frames are sent)."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from vqakit.benchmarks import BUILT_IN_NAMES
from vqakit.files import write_text_atomic
from vqakit.prompts import is_file_prompt, prompt_hash, prompt_names
from vqakit.runner._checks import CheckedRun
from vqakit.runner._config import EvalConfig
from vqakit.runner._endpoints import time_limits
from vqakit.runner._saved import check_or_write_config, saved_protocol
from vqakit.runs import MANIFEST
from vqakit.schema import Benchmark


def benchmark_hash(benchmark: Benchmark) -> str:
    digest = hashlib.sha256()
    for name in ("benchmark.yaml", "samples.jsonl", "corpus/clips.jsonl", "corpus/passages.jsonl"):
        path = benchmark.root / name
        if path.is_file():
            digest.update(name.encode())
            with open(path, "rb") as handle:  # in parts: a million samples are 300 MB
                while chunk := handle.read(1 << 22):
                    digest.update(chunk)
    return digest.hexdigest()[:16]


# (distribution, module): the packages whose version a manifest records
_VERSIONED = (
    ("vqakit", "vqakit"),
    ("numpy", "numpy"),
    ("av", "av"),
    ("pydantic", "pydantic"),
    ("pillow", "PIL"),
    ("aiohttp", "aiohttp"),
    ("h11", "h11"),
    ("torch", "torch"),
    ("transformers", "transformers"),
)


def _versions() -> dict[str, str]:
    """Versions of the packages the run uses: read from the module when it is imported (looking
    a distribution up in the installed metadata scans every package of the environment), and
    torch and transformers only when the run imported them (a run of an API model does not)."""
    found = {"python": platform.python_version()}
    for package, module_name in _VERSIONED:
        module = sys.modules.get(module_name)
        if module is None and package in ("torch", "transformers"):
            continue
        version = getattr(module, "__version__", None)
        if not isinstance(version, str):
            try:
                version = metadata.version(package)
            except metadata.PackageNotFoundError:
                continue
        found[package] = version
    return found


def _saved_bench(config: EvalConfig, benchmark: Benchmark, folder: Path) -> str:
    """How config.yaml names the benchmark: a shipped one by name, a folder by its path relative
    to the run folder (so the run resumes, and `compare` reads it, from any working directory)."""
    if config.bench in BUILT_IN_NAMES and not Path(config.bench).is_dir():
        return config.bench
    return os.path.relpath(benchmark.root.resolve(), folder.resolve())


def _input_record(config: EvalConfig, checked: CheckedRun) -> dict[str, Any]:
    """The manifest's record of what the model was given of the video: frames, or the video and how."""
    protocol = checked.protocol
    if protocol.input != "video":
        return {"input": "frames"}
    from vqakit.methods import describe_video_input
    from vqakit.models import parse_model_spec

    backend = parse_model_spec(config.model).backend if config.model else None
    return {"input": "video", "video": describe_video_input(backend, checked.options, protocol)}


def _images_line(config: EvalConfig) -> dict[str, Any]:
    """How images reach the model: JPEG encoder, quality, subsampling and longest side (or
    pixels, for local models), and whether the frame store kept them."""
    from vqakit.models import sent_encoding

    return {"sent_as": sent_encoding(config.model) or "pixels", "frame_store": config.frame_cache}


def write_run_files(
    config: EvalConfig,
    checked: CheckedRun,
    benchmark: Benchmark,
    folder: Path,
) -> EvalConfig:
    """config.yaml (checked against a run already there) and manifest.json (with the person
    who answered, for a method whose answers come from people). Returns the config to run:
    judges added to an existing run grade with all of the run's judges."""
    from vqakit.models import redact_record

    saved = redact_record(
        {
            **config.model_dump(mode="json"),
            "bench": _saved_bench(config, benchmark, folder),
            "method_args": checked.options.model_dump(mode="json"),
            "protocol": saved_protocol(checked.protocol),
            "benchmark_hash": benchmark_hash(benchmark),
        }
    )
    effective = check_or_write_config(folder, saved)
    if effective is not saved:  # judges added to an existing run: grade with all of them
        config = config.model_copy(
            update={"judges": effective["judges"], "judge_args": effective["judge_args"]}
        )
    prompts = {name: prompt_hash(name) for name in prompt_names()}
    if is_file_prompt(checked.protocol.prompt):
        prompts[checked.protocol.prompt] = prompt_hash(checked.protocol.prompt, benchmark.root)
    manifest = {
        "versions": _versions(),
        "benchmark": str(benchmark.root),
        "benchmark_name": benchmark.card.name,
        "benchmark_version": benchmark.card.version,
        "benchmark_hash": saved["benchmark_hash"],
        "shown": checked.method.shown(checked.options, checked.protocol),
        "frames_sent": checked.protocol.frames if checked.method.sends_frames(checked.options) else None,
        **_input_record(config, checked),
        "prompt_hashes": prompts,
        "images": _images_line(config),
        "time_limits": time_limits(config),
    }
    participant = checked.method.participant(checked.options)
    if participant is not None:
        manifest["participant"] = participant
    write_text_atomic(folder / MANIFEST, json.dumps(redact_record(manifest), indent=1) + "\n")
    return config
