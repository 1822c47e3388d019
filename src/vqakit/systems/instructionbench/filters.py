"""The four quality filters of the paper (item 4 of issue 13), in their order. Each is a journaled
model step (two for blind and tricky: an answer, then a judge comparing it with the reference)
whose judgement and reason are kept, whether the pair passes or not.

- blind: the model answers from the question alone; an answer that matches the reference means
  common sense suffices, so the pair is dropped.
- hallucination: a judge reads the video info and the question; a question unrelated to the
  info, asking beyond it, needing extreme values or arithmetic on time intervals, subjective or
  built on an absurd premise is poorly designed and dropped.
- tricky: the model answers with the video info; an answer that does not match the reference
  means the pair is suspect, so it is dropped.
- unspecific: a judge reads info, question and answer; a vague or incomplete answer, or one
  missing other correct alternatives, is dropped.

Journal: steps `filter-blind` / `filter-blind-match`, `filter-hallucination`, `filter-tricky` /
`filter-tricky-match` and `filter-unspecific`, each with the pair's `qa_id` as item.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, Field, field_validator

from vqakit.builders import ModelSteps
from vqakit.prompts import render_prompt
from vqakit.systems.instructionbench.generate import QA
from vqakit.systems.instructionbench.video_info import VideoInfo
from vqakit.systems.instructionbench.video_text import video_text

FilterName = Literal["blind", "hallucination", "tricky", "unspecific"]
FILTERS: tuple[FilterName, ...] = ("blind", "hallucination", "tricky", "unspecific")
_YES, _NO = {"yes", "y", "true"}, {"no", "n", "false"}


class Answer(BaseModel):
    answer: str = Field(min_length=1, validation_alias=AliasChoices("answer", "Answer"))
    reason: str = Field("", validation_alias=AliasChoices("reason", "Reason"))


class Judgement(BaseModel):
    """A yes/no judgement with its reason; what "yes" means is the prompt's question."""

    judgement: bool = Field(validation_alias=AliasChoices("judgement", "Judgement", "judgment", "Judgment"))
    reason: str = Field("", validation_alias=AliasChoices("reason", "Reason"))

    @field_validator("judgement", mode="before")
    @classmethod
    def _yes_no(cls, value: Any) -> Any:
        if isinstance(value, str):
            word = value.strip().strip(".!'\"").lower()
            if word in _YES | _NO:
                return word in _YES
            raise ValueError(f"must be 'Yes' or 'No', got {value!r}")
        return value


class FilterJudgement(BaseModel):
    """One filter's outcome for one pair. `verdict` names what the filter found ("matches the
    reference", "poorly designed", ...); `answer`/`answer_reason` are the model's own answer
    (blind and tricky); `error` is set, and `passed` False, when a model step failed."""

    name: FilterName
    passed: bool
    verdict: str
    reason: str
    answer: str | None = None
    answer_reason: str | None = None
    error: str | None = None


def _failed(name: FilterName, error: str | None, answer: Answer | None = None) -> FilterJudgement:
    return FilterJudgement(
        name=name,
        passed=False,
        verdict="error",
        reason="",
        answer=answer.answer if answer else None,
        answer_reason=answer.reason if answer else None,
        error=error or "model step failed",
    )


async def _answer_then_match(
    name: FilterName, steps: ModelSteps, model: Any, qa: QA, info: str | None
) -> FilterJudgement:
    """Blind (`info` None) and tricky: the model answers, then judges its answer against the
    reference. Blind passes when they differ, tricky when they match."""
    prompt = render_prompt("ib_filter_answer", question=qa.question, video_info=info)
    answer, error = await steps.ask(model, f"filter-{name}", qa.qa_id, prompt, Answer)
    if answer is None:
        return _failed(name, error)
    prompt = render_prompt(
        "ib_filter_match", question=qa.question, reference=qa.answer, candidate=answer.answer
    )
    match, error = await steps.ask(model, f"filter-{name}-match", qa.qa_id, prompt, Judgement)
    if match is None:
        return _failed(name, error, answer)
    return FilterJudgement(
        name=name,
        passed=not match.judgement if name == "blind" else match.judgement,
        verdict="matches the reference" if match.judgement else "differs from the reference",
        reason=match.reason,
        answer=answer.answer,
        answer_reason=answer.reason,
    )


async def _judge(
    name: FilterName, steps: ModelSteps, model: Any, qa: QA, info: str, bad: str, good: str
) -> FilterJudgement:
    """Hallucination and unspecific: one judge says yes (the pair is bad) or no."""
    prompt = render_prompt(f"ib_filter_{name}", video_info=info, question=qa.question, answer=qa.answer)
    found, error = await steps.ask(model, f"filter-{name}", qa.qa_id, prompt, Judgement)
    if found is None:
        return _failed(name, error)
    return FilterJudgement(
        name=name, passed=not found.judgement, verdict=bad if found.judgement else good, reason=found.reason
    )


async def apply_filter(
    name: FilterName, steps: ModelSteps, model: Any, clip: VideoInfo, qa: QA
) -> FilterJudgement:
    """Run one filter on one pair of `clip`."""
    if name == "blind":
        return await _answer_then_match(name, steps, model, qa, None)
    if name == "tricky":
        return await _answer_then_match(name, steps, model, qa, video_text(clip))
    if name == "hallucination":
        return await _judge(name, steps, model, qa, video_text(clip), "poorly designed", "well designed")
    if name == "unspecific":
        return await _judge(name, steps, model, qa, video_text(clip), "unspecific answer", "specific answer")
    raise ValueError(f"unknown filter {name!r}; known: {', '.join(FILTERS)}")


async def apply_filters(
    steps: ModelSteps, model: Any, clip: VideoInfo, qa: QA, names: tuple[FilterName, ...] = FILTERS
) -> list[FilterJudgement]:
    """The filters in order, up to the first that does not pass (dropped, or failed)."""
    found: list[FilterJudgement] = []
    for name in names:
        found.append(await apply_filter(name, steps, model, clip, qa))
        if not found[-1].passed:
            break
    return found
