"""Open-ended pair -> five-option MCQ (item 5 of issue 13), the paper's loop: a writer drafts six
wrong answers shaped like the right one and picks the best four; duplicates (same normalised
text, or embeddings closer than `similarity`) send it back; then three different models answer
with the video info (more than half wrong: a wrong option may be right) and without it (more than
half right: the wrong options are too weak), each failure a redesign, up to `max_attempts`.

Each attempt k is its own journal item, so a rerun replays every attempt: steps `mcq-wrong` and
`mcq-pick` with item `<qa_id>:a<k>`, `mcq-with-info` and `mcq-without-info` with item
`<qa_id>:a<k>:<checker spec>`. Checkers see the options in a seeded order (the answer is not
always A); `options` returns them answer first, for the letter balancing that follows.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

import numpy as np
from pydantic import AliasChoices, BaseModel, Field, field_validator, model_validator

from vqakit.builders import ModelSteps, check_mcq, seeded_random
from vqakit.prompts import render_prompt
from vqakit.systems.instructionbench.generate import QA
from vqakit.systems.instructionbench.video_info import VideoInfo
from vqakit.systems.instructionbench.video_text import video_text

WRONG, PICKED = 6, 4  # wrong answers drafted, and kept
CHECK_PROMPT = "ib_mcq_check"


class WrongAnswers(BaseModel):
    """The writer's six wrong answers (a bare list, or `Wrong_answer1..6` keys, are accepted)."""

    wrong_answers: list[str] = Field(min_length=WRONG, max_length=WRONG)

    @model_validator(mode="before")
    @classmethod
    def _gather(cls, value: Any) -> Any:
        if isinstance(value, list):
            return {"wrong_answers": value}
        if isinstance(value, dict) and "wrong_answers" not in value:
            numbered = [v for k, v in sorted(value.items()) if re.fullmatch(r"(?i)wrong_?answer_?\d+", k)]
            lists = [v for v in value.values() if isinstance(v, list)]
            return {"wrong_answers": numbered or (lists[0] if len(lists) == 1 else None)}
        return value

    @field_validator("wrong_answers")
    @classmethod
    def _not_blank(cls, value: list[str]) -> list[str]:
        cleaned = [" ".join(str(v).split()) for v in value]
        if not all(cleaned):
            raise ValueError("every wrong answer must be a non-empty text")
        return cleaned


class Picks(BaseModel):
    """The four drafted wrong answers kept, by their numbers (1-6)."""

    picks: list[int] = Field(validation_alias=AliasChoices("picks", "Picks", "chosen"))
    reason: str = Field("", validation_alias=AliasChoices("reason", "Reason"))

    @field_validator("picks")
    @classmethod
    def _four_distinct(cls, value: list[int]) -> list[int]:
        if len(set(value)) != PICKED or not all(1 <= v <= WRONG for v in value):
            raise ValueError(f"must be {PICKED} different numbers from 1 to {WRONG}, got {value}")
        return value


class CheckerPick(BaseModel):
    """What one checker picked in the last attempt (None: not asked, or no option named)."""

    model: str
    with_info: str | None = None
    with_info_correct: bool | None = None
    without_info: str | None = None
    without_info_correct: bool | None = None


class MCQResult(BaseModel):
    """The five options (answer at index 0) or, when `given_up`, none; `history` says why each
    failed attempt failed; `error` is set (and nothing decided) when a model step failed."""

    qa_id: str
    options: list[str] = Field(default_factory=list)
    attempts: int = 0
    history: list[str] = Field(default_factory=list)
    checks: list[CheckerPick] = Field(default_factory=list)
    error: str | None = None
    given_up: bool = False


def normalise(text: str) -> str:
    """Lower case, punctuation and articles dropped, spaces collapsed: "The mask, dried." and
    "the mask dried" are one option."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return " ".join(w for w in words if w not in ("a", "an", "the"))


def duplicate(
    options: list[str], embedder: Any = None, similarity: float = 0.9
) -> tuple[str, str, float] | None:
    """The first two options that repeat each other, with their cosine similarity (1.0 for the
    same normalised text; with an embedder, also any pair above `similarity`), or None."""
    keys = [normalise(o) for o in options]
    pairs = [(i, j) for i in range(len(options)) for j in range(i + 1, len(options))]
    same = next(((i, j) for i, j in pairs if keys[i] == keys[j]), None)
    if same is not None:
        return options[same[0]], options[same[1]], 1.0
    if embedder is None:
        return None
    vectors = np.asarray(embedder.embed(options), dtype=np.float64)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    cosine = vectors @ vectors.T
    close = next(((i, j) for i, j in pairs if cosine[i, j] > similarity), None)
    return None if close is None else (options[close[0]], options[close[1]], float(cosine[close]))


async def _draft(
    steps: ModelSteps, writer: Any, item: str, fields: dict[str, str], earlier: list[dict[str, Any]]
) -> tuple[list[str] | None, str | None]:
    """The writer's two steps: six wrong answers, then the four it keeps; the answer comes first."""
    prompt = render_prompt("ib_mcq_wrong", count=WRONG, earlier=earlier, **fields)
    drafted, error = await steps.ask(writer, "mcq-wrong", item, prompt, WrongAnswers)
    if drafted is None:
        return None, error
    prompt = render_prompt("ib_mcq_pick", count=PICKED, candidates=drafted.wrong_answers, **fields)
    picked, error = await steps.ask(writer, "mcq-pick", item, prompt, Picks)
    if picked is None:
        return None, error
    return [fields["answer"], *(drafted.wrong_answers[n - 1] for n in picked.picks)], None


async def _verify(
    steps: ModelSteps,
    checkers: list[Any],
    qa: QA,
    item: str,
    options: list[str],
    info: str,
    seen: list[CheckerPick],
) -> tuple[str, str] | str | None:
    """The checks with and without the info (the second only when the first holds), their picks
    recorded in `seen`: None when both hold, (kind, why) when one fails, a string on a step error."""
    order = list(range(len(options)))
    seeded_random(0, item).shuffle(order)
    shown, expected = [options[i] for i in order], order.index(0)
    for evidence in (info, None):
        step = "mcq-with-info" if evidence is not None else "mcq-without-info"
        found = await asyncio.gather(
            *(
                check_mcq(
                    steps,
                    checker,
                    step=step,
                    item=f"{item}:{checker}",
                    options=shown,
                    expected=expected,
                    question=qa.question,
                    evidence=evidence,
                    prompt=CHECK_PROMPT,
                )
                for checker in checkers
            )
        )
        errors = [c.error for c in found if c.error is not None]
        if errors:
            return errors[0]
        for pick, check in zip(seen, found, strict=True):
            text = shown[check.chosen] if check.chosen is not None else None
            if evidence is not None:
                pick.with_info, pick.with_info_correct = text, check.correct
            else:
                pick.without_info, pick.without_info_correct = text, check.correct
        failure = _verdict(evidence is not None, sum(c.correct for c in found), len(found))
        if failure is not None:
            return failure
    return None


async def make_mcq(
    steps: ModelSteps,
    writer: Any,
    checkers: list[Any],
    clip: VideoInfo,
    qa: QA,
    *,
    embedder: Any = None,
    max_attempts: int = 10,
    similarity: float = 0.9,
) -> MCQResult:
    """Five verified options for `qa`, or why none were found in `max_attempts` attempts.
    `checkers` are three (or more) models with different specs."""
    names = [str(c) for c in checkers]
    if len(checkers) < 3 or len(set(names)) != len(names):
        raise ValueError(f"the MCQ checks need three or more models with different specs, got {names}")
    fields = {"video_info": video_text(clip), "question": qa.question, "answer": qa.answer}
    result = MCQResult(qa_id=qa.qa_id)
    earlier: list[dict[str, Any]] = []  # each failed attempt, for the writer's next draft
    for attempt in range(1, max_attempts + 1):
        item = f"{qa.qa_id}:a{attempt}"
        result.attempts, result.checks = attempt, []
        options, error = await _draft(steps, writer, item, fields, earlier)
        if options is None:
            result.error = error
            return result
        failure: tuple[str, str] | str | None = None
        repeated = duplicate(options, embedder, similarity)
        if repeated is not None:
            first, second, cosine = repeated
            close = "repeat each other" if cosine >= 1.0 else f"are near-duplicates (cosine {cosine:.3f})"
            failure = ("duplicate", f"options {first!r} and {second!r} {close}")
        else:
            result.checks = [CheckerPick(model=name) for name in names]
            failure = await _verify(steps, checkers, qa, item, options, fields["video_info"], result.checks)
        if isinstance(failure, str):
            result.error = failure
            return result
        if failure is None:
            result.options = options
            return result
        result.history.append(f"attempt {attempt}: {failure[1]}")
        earlier.append({"options": options[1:], "problem": failure[0]})
    result.given_up = True
    return result


def _verdict(with_info: bool, right: int, total: int) -> tuple[str, str] | None:
    """The paper's two majority rules: with the info most must find the answer, without it most
    must not."""
    wrong = total - right
    if with_info and 2 * wrong > total:
        return "maybe_right", f"{wrong} of {total} checkers missed the answer with the video info"
    if not with_info and 2 * right > total:
        return "too_weak", f"{right} of {total} checkers found the answer without the video info"
    return None
