"""Structured model steps of a build, journaled: a step asked before with the same request is
answered from the journal instead of the model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, NamedTuple, TypeVar

from pydantic import BaseModel

from vqakit.builders._journal import BuildJournal
from vqakit.models import Image, Message, complete_structured, pixel_hash

Schema = TypeVar("Schema", bound=BaseModel)


class StepResult(NamedTuple, Generic[Schema]):
    """The validated reply of a step, or None and why the step failed."""

    value: Schema | None
    error: str | None


class ModelSteps:
    """`ask` answers each step from the journal or the model; `on_step(done, failed)` follows
    how many steps are done (reused ones included) and how many failed."""

    def __init__(self, journal: BuildJournal, on_step: Callable[[int, int], None] | None = None) -> None:
        self.journal = journal
        self.on_step = on_step
        self.done = 0
        self.failed = 0

    def _count(self, ok: bool) -> None:
        self.done += ok
        self.failed += not ok
        if self.on_step is not None:
            self.on_step(self.done, self.failed)

    @property
    def reused(self) -> int:
        return self.journal.reused

    async def ask(
        self,
        model: Any,
        step: str,
        item: str,
        prompt: str,
        schema: type[Schema],
        image: Any = None,
    ) -> StepResult[Schema]:
        """Ask `model` for JSON valid as `schema` (with repair turns); the request id the model
        sees is `step:item`. Only successful steps are journaled, so a failed one is retried on
        the next run."""
        request = prompt + (pixel_hash(image) if image is not None else "")
        key = self.journal.key(step, item, request)
        known = self.journal.get(key)
        if known is not None:
            self._count(True)
            return StepResult(schema.model_validate(known), None)
        parts = [Image(image), prompt] if image is not None else [prompt]
        found, completion = await complete_structured(
            model, [Message.user(*parts)], schema, sample_id=f"{step}:{item}"
        )
        self._count(found is not None)
        if found is None:
            error = completion.error
            return StepResult(
                None, f"model step failed: {error.type}: {error.message}" if error else "model step failed"
            )
        self.journal.put(key, found.model_dump())
        return StepResult(found, None)
