"""What a run cost: model calls, cache hits, tokens and time."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vqakit.schema import Prediction


class UsageTally:
    """`usage_totals`, counted one prediction at a time."""

    def __init__(self) -> None:
        self.calls = self.cached_calls = self.input_tokens = self.output_tokens = 0
        self.latency_s = 0.0

    def add(self, prediction: Prediction) -> None:
        self.calls += prediction.calls
        self.cached_calls += prediction.cached_calls
        self.input_tokens += prediction.input_tokens
        self.output_tokens += prediction.output_tokens
        self.latency_s += prediction.latency_s

    def totals(self, judgments: int, wall_s: float | None = None) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cached_calls": self.cached_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "latency_s": round(self.latency_s, 3),
            "judgments": judgments,
            "wall_s": None if wall_s is None else round(wall_s, 3),
        }


def usage_totals(
    predictions: Iterable[Prediction],
    judgments: dict[str, dict[str, dict[str, Any]]],
    wall_s: float | None = None,
) -> dict[str, Any]:
    """Totals over the predictions (and the number of judge records): calls, cache hits, input and
    output tokens, summed call latency, and the wall time of the last `eval` (None on a re-score)."""
    tally = UsageTally()
    for prediction in predictions:
        tally.add(prediction)
    return tally.totals(sum(len(records) for records in judgments.values()), wall_s)
