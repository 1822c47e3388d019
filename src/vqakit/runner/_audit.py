"""Modality-bias audit: text-only models answer from question and options alone (one `blind` run
each); questions at least K of them get right are listed for review (nothing is deleted), with
the gold-letter and option-length biases. Writes `audit.json`."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.files import slug, write_text_atomic
from vqakit.runner._config import EvalConfig
from vqakit.runner._run import RunProgress, run_eval
from vqakit.runs import RunFolder
from vqakit.scoring import blind_agreement, option_biases


def run_audit(
    bench: str,
    specs: list[str],
    agree: int | None = None,
    out: str | Path | None = None,
    concurrency: int = 8,
    *,
    on_progress: Callable[[str, RunProgress], None] | None = None,
) -> tuple[dict[str, Any], Path]:
    """(the audit, the folder holding audit.json and one blind run per model).
    `on_progress(model, RunProgress)` follows each blind run."""
    benchmark = load_benchmark(bench)
    folder = (
        Path(out)
        if out is not None
        else Path("runs") / f"{slug(benchmark.card.name, empty='benchmark')}-audit"
    )
    choices: dict[str, dict[str, int | None]] = {}
    for spec in specs:
        run = run_eval(
            EvalConfig(bench=bench, method="blind", model=spec, concurrency=concurrency),
            folder / slug(spec.split("#")[-1], empty="model"),
            on_progress=None if on_progress is None else partial(on_progress, spec),
        )
        predictions = RunFolder(run.folder).predictions()
        choices[spec] = {sample_id: p.choice for sample_id, p in predictions.items()}
    report = {
        "blind": blind_agreement(benchmark.samples, choices, agree or len(specs)),
        "options": option_biases(benchmark.samples),
    }
    write_text_atomic(folder / "audit.json", json.dumps(report, indent=1) + "\n")
    return report, folder
