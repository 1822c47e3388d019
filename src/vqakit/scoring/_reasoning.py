"""What counts as a model's reasoning when a run grades it (e.g. Minerva-Ego's rubric judge and
object recall): one run-level choice (`EvalConfig.reasoning_source`), the same for every reader.

- `reply` (the default): the reply the model wrote, where the benchmark's prompt
  (`mcq_reasoning`) asks for numbered reasoning before the answer;
- `thinking`: the model's separate thinking text (`Prediction.reasoning`, returned by reasoning
  models and thinking modes), for runs whose prompt asks only for the answer;
- `both`: the thinking text, then the reply.

A source that is empty for a prediction gives an empty text (never the other source instead),
so a run's numbers always mean the same thing; such a prediction is not graded or scored.

The runner sets the choice around scoring and judging (`use_reasoning_source`); judges and score
fields read it with `reasoning_source()`. Users set it with `--reasoning-source` on `vqakit eval`
and `vqakit rank`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Literal, get_args

from vqakit.schema import Prediction

ReasoningSource = Literal["reply", "thinking", "both"]
REASONING_SOURCES: tuple[str, ...] = get_args(ReasoningSource)
DEFAULT_SOURCE: ReasoningSource = "reply"


def check_source(value: str) -> ReasoningSource:
    """`value` as a reasoning source; ValueError names the known ones."""
    if value not in REASONING_SOURCES:
        raise ValueError(f"reasoning source {value!r}: use one of {', '.join(REASONING_SOURCES)}")
    return value  # type: ignore[return-value]


def model_reasoning(prediction: Prediction, source: str = DEFAULT_SOURCE) -> str:
    """The text of `prediction` that counts as its reasoning under `source`."""
    reply = (prediction.reply or "").strip()
    thinking = (prediction.reasoning or "").strip()
    chosen = check_source(source)
    if chosen == "reply":
        return reply
    if chosen == "thinking":
        return thinking
    return "\n\n".join(part for part in (thinking, reply) if part)


_SOURCE: ContextVar[ReasoningSource] = ContextVar("vqakit_reasoning_source", default=DEFAULT_SOURCE)


def reasoning_source() -> ReasoningSource:
    """The run's choice (DEFAULT_SOURCE unless set with `use_reasoning_source`)."""
    return _SOURCE.get()


@contextmanager
def use_reasoning_source(source: str) -> Iterator[ReasoningSource]:
    """Grade and score with `source` inside the block: `with use_reasoning_source("both"):
    run_eval(...)`. The rubric judge writes the source it graded into each judgment record and
    object recall names it in results.json, so a run's numbers say what they were read from."""
    token = _SOURCE.set(check_source(source))
    try:
        yield _SOURCE.get()
    finally:
        _SOURCE.reset(token)
