"""Stages 4-7: the paper's four filters, one stage each and in its order. Every judgement (kept
or dropped) is written to `build/judgements.jsonl`; a dropped question's drop line carries the
filter's verdict and reason."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic_core import to_jsonable_python

from vqakit.files import write_text_atomic
from vqakit.systems.instructionbench.builder.context import BuildContext
from vqakit.systems.instructionbench.builder.records import Question
from vqakit.systems.instructionbench.filters import FILTERS, apply_filter

JUDGEMENTS = "judgements.jsonl"
FIRST_STAGE = 4
DROP_REASONS = {  # what a failed filter means (the drop reason before its ':')
    "blind": "answered without the video",
    "hallucination": "hallucinated or poorly designed",
    "tricky": "missed even with the annotations",
    "unspecific": "unspecific or incomplete answer",
}


def filter_stage(name: str) -> str:
    return f"{FIRST_STAGE + FILTERS.index(name)} {name} filter"


def _record(question: Question, judgement: Any) -> dict[str, Any]:
    """A judgement line: the question, the filter (`name`), passed, verdict, reason, error and
    whatever else the filter kept (the model's own answer for blind and tricky)."""
    return {"qa_id": question.id, **to_jsonable_python(judgement, fallback=str)}


async def _one_filter(ctx: BuildContext, name: str, questions: list[Question]) -> list[Question]:
    stage = filter_stage(name)

    async def one(question: Question) -> Question | None:
        judgement = await apply_filter(name, ctx.steps, ctx.llm, question.clip.info, question.qa)
        question.judgements.append(judgement)
        if judgement.error:
            ctx.log.drop(stage, question.id, f"filter step failed: {judgement.error}")
            return None
        if not judgement.passed:
            verdict = to_jsonable_python(judgement.verdict, fallback=str)
            ctx.log.drop(stage, question.id, f"{DROP_REASONS.get(name, name)}: {verdict}: {judgement.reason}")
            return None
        return question

    kept = [q for q in await asyncio.gather(*(one(q) for q in questions)) if q is not None]
    ctx.log.close(stage, "questions", len(questions), len(kept))
    return kept


async def apply_filters(ctx: BuildContext, questions: list[Question]) -> list[Question]:
    """Each filter over the questions the earlier ones kept."""
    everyone = list(questions)
    for name in FILTERS:
        questions = await _one_filter(ctx, name, questions)
    lines = [json.dumps(_record(q, j), ensure_ascii=False) + "\n" for q in everyone for j in q.judgements]
    write_text_atomic(ctx.folder / JUDGEMENTS, "".join(lines))
    return questions
