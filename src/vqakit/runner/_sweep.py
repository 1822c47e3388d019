"""Sweeps: one run per value of one parameter, then accuracy against the value.

The parameter is a run setting (`frames`, `short_side`, `prompt`) or any option of the method
(e.g. `window_s` or `top_clips` of the retrieval methods).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.files import check_out, slug, write_text_atomic, writing_folder
from vqakit.methods import MethodSetupError, get_method
from vqakit.runner._checks import check_run
from vqakit.runner._config import EvalConfig
from vqakit.runner._endpoints import check_endpoints
from vqakit.runner._run import RunOutcome, RunProgress, run_eval
from vqakit.runs import is_run_folder
from vqakit.schema import Benchmark

SWEEPABLE = ("frames", "short_side", "prompt")  # run settings; method options are sweepable too


def swept_accuracy(results: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(label, summary) of the accuracy a sweep plots for one run: its MCQ accuracy, or its
    open-ended accuracy when it scored no MCQ sample (the headline definitions)."""
    for key, label in (("mcq", "MCQ accuracy"), ("open_ended", "open-ended accuracy")):
        if (results.get(key) or {}).get("n"):
            return label, results[key]
    return "MCQ accuracy", results.get("mcq") or {"n": 0, "accuracy": None, "ci95": [None, None]}


def expand_values(parameter: str, text: str, method: str = "direct") -> list[Any]:
    """`uniform:0,1,8` -> ["uniform:0", "uniform:1", "uniform:8"]; `224,448` -> [224, 448]; a
    method option's values are converted by the method's options (`1,3` -> [1, 3])."""
    if parameter == "frames":
        kind, _, values = text.partition(":")
        if not values:
            raise ValueError(f"frames sweep {text!r}: use KIND:V1,V2,... such as uniform:0,1,8,16,64")
        return [f"{kind}:{value.strip()}" for value in values.split(",") if value.strip()]
    items = [value.strip() for value in text.split(",") if value.strip()]
    if parameter == "short_side":
        try:
            return [int(value) for value in items]
        except ValueError:
            raise ValueError(f"{parameter} sweep {text!r}: use numbers separated by commas") from None
    if parameter == "prompt":
        return items
    found = get_method(method)
    if parameter not in found.options.model_fields:
        known = ", ".join([*SWEEPABLE, *found.options.model_fields])
        raise ValueError(f"cannot sweep {parameter!r} with method {method}; sweepable: {known}")
    try:
        return [getattr(found.parse_options({parameter: value}), parameter) for value in items]
    except MethodSetupError as error:
        raise ValueError(f"{parameter} sweep {text!r}: {error}") from None


def _with(base: EvalConfig, parameter: str, value: Any) -> EvalConfig:
    if parameter in SWEEPABLE:
        return base.model_copy(update={parameter: value})
    return base.model_copy(update={"method_args": {**base.method_args, parameter: value}})


def run_sweep(
    base: EvalConfig,
    parameter: str,
    values: list[Any],
    out: str | Path,
    *,
    on_progress: Callable[[str, RunProgress], None] | None = None,
    preflight: bool = False,
) -> list[tuple[Any, RunOutcome]]:
    """One run per value into `out/<parameter>=<value>`, then sweep.json and sweep.html.
    `on_progress(value, RunProgress)` follows each run's samples. `out` must be new, empty or a
    sweep's folder (resumed), outside the benchmark (`OutFolderRefused`). `preflight`: the first
    run is checked, its model endpoints included (`check_endpoints`), before anything is written."""
    if parameter not in SWEEPABLE and parameter not in get_method(base.method).options.model_fields:
        raise ValueError(f"cannot sweep {parameter!r} with method {base.method}")
    benchmark = load_benchmark(base.bench)
    check_out(out, "sweep", inputs=[benchmark.root], legacy=_swept_before_markers)  # before any request
    if preflight and values:
        first = _with(base, parameter, values[0])
        check_run(first, benchmark, allow_no_frames=True)
        check_endpoints([first])
    with writing_folder(out, "sweep", inputs=[benchmark.root], legacy=_swept_before_markers) as folder:
        return _sweep(base, parameter, values, folder, benchmark, on_progress)


def _swept_before_markers(folder: Path) -> bool:
    """A sweep's folder from before markers: run folders, sweep.json and sweep.html only."""
    return all(
        is_run_folder(entry) or entry.name in ("sweep.json", "sweep.html", ".lock")
        for entry in folder.iterdir()
    )


def _sweep(
    base: EvalConfig,
    parameter: str,
    values: list[Any],
    out: Path,
    benchmark: Benchmark,
    on_progress: Callable[[str, RunProgress], None] | None,
) -> list[tuple[Any, RunOutcome]]:
    outcomes = []
    for value in values:
        folder = out / slug(f"{parameter}={value}", max_length=200)
        progress = None if on_progress is None else partial(on_progress, f"{parameter}={value}")
        config = _with(base, parameter, value)
        outcome = run_eval(config, folder, on_progress=progress, allow_no_frames=True, benchmark=benchmark)
        outcomes.append((value, outcome))
    table = []
    for value, outcome in outcomes:
        measure, summary = swept_accuracy(outcome.results)
        table.append(
            {"value": value, "folder": str(outcome.folder), "measure": measure,
             **{k: summary[k] for k in ("n", "accuracy", "ci95")}}
        )  # fmt: skip
    write_text_atomic(
        out / "sweep.json", json.dumps({"parameter": parameter, "runs": table}, indent=1) + "\n"
    )
    from vqakit.report import write_sweep_report

    write_sweep_report(out, parameter, table)
    return outcomes
