"""Quality checks that ask a model a multiple-choice question and compare its pick with the
expected option: the blind (text-only) check, and verification with or without evidence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, field_validator

from vqakit.builders._steps import ModelSteps
from vqakit.prompts import render_prompt
from vqakit.scoring import extract_choice, format_options

BLIND_PROMPT = "builder_blind_check"
CHECK_PROMPT = "builder_mcq_check"


class LetterAnswer(BaseModel):
    answer: str = Field(min_length=1)

    @field_validator("answer", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value


@dataclass(frozen=True)
class MCQCheck:
    """What the model picked (`chosen`: an option index, None when its reply names none), or
    why the step failed (`error`)."""

    expected: int
    chosen: int | None = None
    error: str | None = None

    @property
    def correct(self) -> bool:
        return self.error is None and self.chosen == self.expected


async def _ask_mcq(
    steps: ModelSteps,
    model: Any,
    step: str,
    item: str,
    prompt: str,
    options: Sequence[str],
    expected: int,
    fields: dict[str, Any],
) -> MCQCheck:
    text = render_prompt(prompt, options=format_options(list(options)), **fields)
    found, error = await steps.ask(model, step, item, text, LetterAnswer)
    if found is None:
        return MCQCheck(expected, error=error)
    return MCQCheck(expected, chosen=extract_choice(found.answer, len(options)).choice)


async def check_mcq(
    steps: ModelSteps,
    model: Any,
    *,
    step: str,
    item: str,
    options: Sequence[str],
    expected: int,
    question: str = "",
    evidence: str | None = None,
    prompt: str = CHECK_PROMPT,
    **fields: Any,
) -> MCQCheck:
    """Ask `model` which option is right, as a journaled step. The prompt is rendered with
    `question`, `options` (lettered lines), `evidence` (None without) and any other `fields`."""
    prompt_fields = {"question": question, "evidence": evidence, **fields}
    return await _ask_mcq(steps, model, step, item, prompt, options, expected, prompt_fields)


async def blind_check(
    steps: ModelSteps,
    model: Any,
    *,
    item: str,
    question: str,
    options: Sequence[str],
    expected: int,
    prompt: str = BLIND_PROMPT,
    step: str = "blind",
) -> MCQCheck:
    """Whether a text-only model finds the answer from the question and options alone (a
    question it solves does not need the video). The prompt gets `question` and `options`."""
    return await _ask_mcq(steps, model, step, item, prompt, options, expected, {"question": question})
