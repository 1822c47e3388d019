"""Benchmarks: the shipped ones by name, any folder by path, loading and checking."""

from __future__ import annotations

from pathlib import Path

from vqakit.benchmarks._registry import (
    BUILT_IN_NAMES,
    BenchmarkNotFound,
    require_benchmark,
    resolve_benchmark,
    resolve_media,
)
from vqakit.schema import Benchmark, Problem, check_folder, load_folder


def check_benchmark(
    name_or_path: str | Path, *, media: bool = True
) -> tuple[Benchmark | None, list[Problem]]:
    """All problems of a benchmark; `media=True` also opens every referenced file."""
    from vqakit.video import VideoMediaChecker

    return check_folder(require_benchmark(name_or_path), VideoMediaChecker() if media else None)


def load_benchmark(name_or_path: str | Path, *, media: bool = False) -> Benchmark:
    """Load a benchmark by name or folder; raises `BenchmarkError` listing its problems. Without
    `media` no file is opened and a missing media file is no problem: running the benchmark, only
    the samples that need it fail (`vqakit validate` names them all). A name that is neither a
    folder nor a shipped benchmark raises `BenchmarkNotFound`."""
    from vqakit.video import VideoMediaChecker

    root = require_benchmark(name_or_path)
    if media:
        return load_folder(root, VideoMediaChecker())
    return load_folder(root, missing_media_ok=True)


from vqakit.benchmarks._stats import benchmark_stats, default_stats_path, stats_lines  # noqa: E402

__all__ = [
    "BUILT_IN_NAMES",
    "BenchmarkNotFound",
    "benchmark_stats",
    "check_benchmark",
    "default_stats_path",
    "load_benchmark",
    "require_benchmark",
    "resolve_benchmark",
    "resolve_media",
    "stats_lines",
]
