"""Statistics of a built InstructionBench folder: `vqakit stats`'s numbers (`benchmark_stats`,
clip windows included), plus the questions per format, dataset, perspective, granularity and
category."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from vqakit.benchmarks import benchmark_stats, stats_lines
from vqakit.schema import Benchmark

KEYS = ("source", "perspective", "granularity", "category")


def _breakdowns(benchmark: Benchmark) -> dict[str, dict[str, dict[str, int]]]:
    """{key: {format: {value: questions}}} for each metadata key of KEYS."""
    found: dict[str, dict[str, Counter[str]]] = {key: defaultdict(Counter) for key in KEYS}
    for sample in benchmark.samples:
        extra = sample.metadata.model_extra or {}
        form = str(extra.get("format", "mcq" if sample.is_mcq else "open-ended"))
        for key in KEYS:
            value = sample.metadata.category if key == "category" else extra.get(key)
            if value is not None:
                found[key][form][str(value)] += 1
    return {
        key: {form: dict(sorted(counts.items())) for form, counts in sorted(by_form.items())}
        for key, by_form in found.items()
    }


def build_stats(benchmark: Benchmark) -> dict[str, Any]:
    """`benchmark_stats` (videos probed) with `by` (breakdowns) added."""
    stats = benchmark_stats(benchmark, media=True)
    stats["by"] = _breakdowns(benchmark)
    return stats


def build_stats_lines(stats: dict[str, Any]) -> list[str]:
    lines = stats_lines(stats)
    for key, by_form in stats["by"].items():
        for form, counts in by_form.items():
            lines.append(f"{form} by {key}: " + ", ".join(f"{v} {n}" for v, n in counts.items()))
    return lines
