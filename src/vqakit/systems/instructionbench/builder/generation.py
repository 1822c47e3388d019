"""Stage 3: question-answer pairs written from each clip's text (theme, duration, timed steps),
once per granularity. Pairs that break the wording rules are rejected and written again by the
generator; each rejection is logged as a drop with the rule it broke."""

from __future__ import annotations

import asyncio
from typing import Any

from vqakit.systems.instructionbench.builder.context import BuildContext
from vqakit.systems.instructionbench.builder.records import Clip, Question
from vqakit.systems.instructionbench.generate import generate_qas

GENERATION = "3 generation"


def _pair_text(pair: Any) -> str:
    """A rejected pair as one short line, whatever form the generator keeps it in."""
    if isinstance(pair, dict):
        question = pair.get("question") or pair.get("Question") or ""
        answer = pair.get("answer") or pair.get("Answer") or ""
        return f"{question!r} -> {answer!r}"
    question, answer = getattr(pair, "question", None), getattr(pair, "answer", None)
    return f"{question!r} -> {answer!r}" if question is not None else repr(pair)


async def generate(ctx: BuildContext, clips: list[Clip]) -> list[Question]:
    """Every clip x granularity; the questions in clip order, then granularity, then as written."""

    async def one(clip: Clip, granularity: str) -> list[Question]:
        item = f"{clip.id}:{granularity}"
        made = await generate_qas(
            ctx.steps, ctx.llm, clip.info, granularity, attempts=ctx.config.generation_attempts
        )
        for number, rejection in enumerate(made.rejected, start=1):
            reason = f"rule {rejection.rule}: {rejection.reason}; {_pair_text(rejection.pair)}"
            ctx.log.drop(GENERATION, f"{item}:rejected-{number}", reason)
        if made.error:
            ctx.log.drop(GENERATION, item, f"generation failed: {made.error}")
        return [
            Question(qa.qa_id or f"{clip.id}-{granularity}-{number:02d}", qa, clip, granularity)
            for number, qa in enumerate(made.qas, start=1)
        ]

    jobs = [one(clip, granularity) for clip in clips for granularity in ctx.config.granularities]
    questions = [q for found in await asyncio.gather(*jobs) for q in found]
    ctx.log.close(GENERATION, "clip-granularities -> questions", len(jobs), len(questions))
    return questions
