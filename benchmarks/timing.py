"""The one way the benchmark scripts time something: the median of repeated runs."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any


def median_time(task: Callable[[], Any], repeats: int) -> float:
    """Median wall time of `task()` over `repeats` runs, in seconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        task()
        times.append(time.perf_counter() - started)
    return statistics.median(times)
