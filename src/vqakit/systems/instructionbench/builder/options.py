"""Stages 8-9: each question that passed the filters becomes a five-option question (four
verified distractors, redesigned up to `mcq_attempts` times), then the gold letters are spread
evenly over A-E. Every design's history and checks go to `build/mcq_designs.jsonl`; a question
whose options were given up on stays an open-ended question."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from pydantic_core import to_jsonable_python

from vqakit.builders import OptionPool, balance_letters, letter_spread
from vqakit.files import write_text_atomic
from vqakit.systems.instructionbench.builder.context import BuildContext
from vqakit.systems.instructionbench.builder.records import Question
from vqakit.systems.instructionbench.distractors import make_mcq

MCQ, LETTERS = "8 mcq", "9 letters"
DESIGNS = "mcq_designs.jsonl"
N_OPTIONS = 5


def _design(question: Question, result: Any) -> dict[str, Any]:
    """The design record: attempts, why each failed, the last checks, the options found."""
    return {"qa_id": question.id, **to_jsonable_python(result, fallback=str)}


async def design_options(ctx: BuildContext, questions: list[Question]) -> list[Question]:
    """Stage 8: the questions that got five verified options (the gold one first)."""
    config = ctx.config
    designs: list[dict[str, Any]] = []

    async def one(question: Question) -> Question | None:
        result = await make_mcq(
            ctx.steps,
            ctx.llm,
            ctx.checkers,
            question.clip.info,
            question.qa,
            embedder=ctx.embedder,
            max_attempts=config.mcq_attempts,
            similarity=config.similarity,
        )
        designs.append(_design(question, result))
        question.mcq_attempts = result.attempts
        if result.given_up:
            last = f"; last: {result.history[-1]}" if result.history else ""
            ctx.log.drop(MCQ, question.id, f"gave up: no verified options in {result.attempts} designs{last}")
            return None
        if result.error:
            ctx.log.drop(MCQ, question.id, f"mcq step failed: {result.error}")
            return None
        if len(result.options) != N_OPTIONS or len(set(result.options)) != N_OPTIONS:
            ctx.log.drop(MCQ, question.id, f"invalid options: {list(result.options)}")
            return None
        question.options = list(result.options)
        return question

    made = [q for q in await asyncio.gather(*(one(q) for q in questions)) if q is not None]
    order = {q.id: n for n, q in enumerate(questions)}
    designs.sort(key=lambda d: order[d["qa_id"]])
    write_text_atomic(
        ctx.folder / DESIGNS, "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in designs)
    )
    ctx.log.close(MCQ, "questions", len(questions), len(made))
    return made


def place_letters(ctx: BuildContext, questions: list[Question]) -> dict[str, int]:
    """Stage 9: the gold option moves to letter `position % 5` in build order, the distractors
    fill the other letters in a seeded order; returns how often each letter is the gold one."""
    questions = [q for q in questions if q.options]
    pools = [OptionPool(q.id, q.options[0], q.options[1:]) for q in questions if q.options]
    for question, placed in zip(questions, balance_letters(pools, ctx.config.seed), strict=True):
        question.options, question.answer_index = placed.options, placed.answer_index
    spread = letter_spread((q.answer_index for q in questions if q.answer_index is not None), N_OPTIONS)
    ctx.log.note("gold letters: " + ", ".join(f"{letter} {count}" for letter, count in spread.items()))
    ctx.log.close(LETTERS, "questions", len(questions), len(questions))
    return spread
