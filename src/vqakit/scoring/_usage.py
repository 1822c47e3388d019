"""What a run cost: model calls, cache hits, tokens and time."""

from __future__ import annotations

from typing import Any

from vqakit.schema import Prediction


def usage_totals(
    predictions: list[Prediction],
    judgments: dict[str, dict[str, dict[str, Any]]],
    wall_s: float | None = None,
) -> dict[str, Any]:
    """Totals over the predictions (and the number of judge records): calls, cache hits, input and
    output tokens, summed call latency, and the wall time of the last `eval` (None on a re-score)."""
    return {
        "calls": sum(p.calls for p in predictions),
        "cached_calls": sum(p.cached_calls for p in predictions),
        "input_tokens": sum(p.input_tokens for p in predictions),
        "output_tokens": sum(p.output_tokens for p in predictions),
        "latency_s": round(sum(p.latency_s for p in predictions), 3),
        "judgments": sum(len(records) for records in judgments.values()),
        "wall_s": None if wall_s is None else round(wall_s, 3),
    }
