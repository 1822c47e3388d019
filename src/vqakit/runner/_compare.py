"""Comparing two run folders over the same benchmark data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.runner._score import checked_runs
from vqakit.runs import RunFolder
from vqakit.scoring import compare_runs, headline_of


def compare_run_folders(
    run_a: str | Path,
    run_b: str | Path,
    *,
    set_aside_bad_lines: bool = False,
    on_note: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """`scoring.compare_runs` on two run folders (they must share the benchmark data), with
    the judge scores of both runs' headlines beside it (`scores`). Their logs are checked first
    (`checked_runs`: `BadLogLines`, or set aside and the run reported again)."""
    checked_runs([run_a, run_b], set_aside_bad_lines=set_aside_bad_lines, on_note=on_note)
    a, b = RunFolder(run_a), RunFolder(run_b)
    if a.config.get("benchmark_hash") != b.config.get("benchmark_hash"):
        raise ValueError("the runs were made on different benchmark data (benchmark_hash differs)")
    samples = load_benchmark(a.benchmark_location()).samples
    scores = _scores(a.results, b.results)
    try:
        result = compare_runs(samples, a.score_rows(), b.score_rows())
    except ValueError:
        if not scores:
            raise
        result = {"mcq": None, "open_ended": None, "overall": None, "groups": {}, "open_ended_groups": {},
                  "diagnostics": {}, "diagnostics_by_group": {}}  # fmt: skip
    result["scores"] = scores
    return result


def _scores(results_a: dict[str, Any], results_b: dict[str, Any]) -> dict[str, Any]:
    """The judge scores of both runs' headlines, side by side (not paired): {key: {label, a, b}}
    with each side's headline entry (None where that run has no such score)."""
    a = {entry["key"]: entry for entry in headline_of(results_a) if entry["unit"] == "score"}
    b = {entry["key"]: entry for entry in headline_of(results_b) if entry["unit"] == "score"}
    return {
        key: {"label": (a.get(key) or b[key])["label"], "a": a.get(key), "b": b.get(key)}
        for key in dict.fromkeys([*a, *b])
    }
