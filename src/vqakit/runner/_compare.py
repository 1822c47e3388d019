"""Comparing two run folders over the same benchmark data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.runs import RunFolder
from vqakit.scoring import compare_runs


def compare_run_folders(run_a: str | Path, run_b: str | Path) -> dict[str, Any]:
    """`scoring.compare_runs` on two run folders; they must share the benchmark data."""
    a, b = RunFolder(run_a), RunFolder(run_b)
    if a.config.get("benchmark_hash") != b.config.get("benchmark_hash"):
        raise ValueError("the runs were made on different benchmark data (benchmark_hash differs)")
    samples = load_benchmark(a.benchmark_location()).samples
    return compare_runs(samples, a.score_rows(), b.score_rows())
