"""What `validate` warns about without calling it a problem: things a benchmark may lack but a
careful author would want to know (the folder stays valid and the exit code 0)."""

from __future__ import annotations

from vqakit.schema._folder import SAMPLES, Benchmark, Problem
from vqakit.schema._trace import find_objects, find_times


def benchmark_warnings(benchmark: Benchmark) -> list[Problem]:
    """`FILE:LINE: field: message` warnings: reasoning traces with no timestamp or no object id
    (Minerva-Ego's traces ground every step in times and objects; recall and the temporal part of
    the rubric have nothing to work with otherwise)."""
    found = []
    for sample in benchmark.samples:
        if not sample.reasoning:
            continue
        line = benchmark.sample_lines.get(sample.id, 0)
        if not find_times(sample.reasoning):
            found.append(Problem(SAMPLES, line, "reasoning", "the trace gives no timestamp (MM:SS)"))
        if not find_objects(sample.reasoning):
            found.append(Problem(SAMPLES, line, "reasoning", "the trace names no object id (name-<16 hex>)"))
    return found
