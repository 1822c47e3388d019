"""Stages 4-5: question-answer pairs written from the facts of each segment, then simplified.

4 questions    one step per segment (`qa:<video_id>.<segment_id>`, prompt `mr_build_qa`): pairs
               that each answer from one or more of the segment's numbered facts and say which
               (`aligned_fact_ids`). Dropped: a pair citing a fact the segment does not have, a
               question without a question mark, a repeated question, pairs past the number
               asked for.
5 simplify     one step per segment (`simplify:<video_id>.<segment_id>`, `mr_build_simplify`):
               names and conditions not needed are taken out of each question and the answer
               adjusted to fit; the model also writes a deliberately vague answer. The written
               question stays as `verbose_question`. Dropped: a question the reply leaves out,
               a simplified text that is not a question, a vague answer equal to the answer.
               Simplified questions that keep a name (a capitalised word) of the verbose one
               are listed in the report's notes, not dropped (the release keeps some too).

A question's `question_id` is its position among the pairs the segment kept at stage 4, so the
ids do not move when a later stage drops a question.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, Field

from vqakit.prompts import render_prompt
from vqakit.systems.movierecapsqa.builder.context import QA, BuildContext, RecapSegment
from vqakit.systems.movierecapsqa.builder.rules import names_kept, normalise, question_problem
from vqakit.systems.movierecapsqa.replies import ListReply

QUESTIONS, SIMPLIFY = "4 questions", "5 simplify"
QA_PROMPT, SIMPLIFY_PROMPT = "mr_build_qa", "mr_build_simplify"


class Pair(BaseModel):
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    facts: list[int] = Field(min_length=1)


class PairList(ListReply):
    """The reply of stage 4: `{"pairs": [...]}` (a bare list is accepted too)."""

    pairs: list[Pair] = Field(min_length=1)


class Simplified(BaseModel):
    number: int
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1)
    vague_answer: str = Field(min_length=1)


class SimplifiedList(ListReply):
    """The reply of stage 5: `{"questions": [...]}` (a bare list is accepted too)."""

    questions: list[Simplified] = Field(min_length=1)


def _one_line(text: str) -> str:
    return " ".join(text.split())


async def _write_pairs(ctx: BuildContext, segment: RecapSegment) -> list[QA]:
    count = ctx.config.questions_per_segment
    prompt = render_prompt(
        QA_PROMPT, movie_name=segment.recap.movie_name, facts=[f.text for f in segment.facts], count=count
    )
    found, error = await ctx.steps.ask(ctx.llm, "qa", segment.id, prompt, PairList)
    if found is None:
        ctx.log.drop(QUESTIONS, segment.id, f"qa step failed: {error}")
        return []
    kept: list[QA] = []
    seen: dict[str, int] = {}
    for index, pair in enumerate(found.pairs, start=1):
        question, answer = _one_line(pair.question), _one_line(pair.answer)
        unknown = sorted({n for n in pair.facts if not 1 <= n <= len(segment.facts)})
        why = question_problem(question)
        if unknown:
            why = f"unknown facts: {', '.join(map(str, unknown))} (the segment has {len(segment.facts)})"
        elif why is None and normalise(question) in seen:
            why = f"duplicate question: repeats pair {seen[normalise(question)]}"
        elif why is None and len(kept) >= count:
            why = f"over the limit: {count} pairs asked for"
        if why is not None:
            ctx.log.drop(QUESTIONS, f"{segment.id}:pair{index}", f"{why}; {question!r}")
            continue
        seen[normalise(question)] = index
        kept.append(QA(segment, len(kept), question, answer, sorted(set(pair.facts))))
    return kept


async def write_questions(ctx: BuildContext, segments: list[RecapSegment]) -> list[QA]:
    """Stage 4: the kept pairs of every segment, in segment order."""
    found = await asyncio.gather(*(_write_pairs(ctx, segment) for segment in segments))
    questions = [qa for pairs in found for qa in pairs]
    ctx.log.close(QUESTIONS, "segments -> questions", len(segments), len(questions))
    return questions


async def _simplify_segment(ctx: BuildContext, questions: list[QA]) -> list[QA]:
    segment = questions[0].segment
    pairs = [{"question": qa.verbose_question, "answer": qa.verbose_answer} for qa in questions]
    prompt = render_prompt(SIMPLIFY_PROMPT, movie_name=segment.recap.movie_name, pairs=pairs)
    found, error = await ctx.steps.ask(ctx.llm, "simplify", segment.id, prompt, SimplifiedList)
    if found is None:
        for qa in questions:
            ctx.log.drop(SIMPLIFY, qa.key, f"simplify step failed: {error}")
        return []
    replies: dict[int, Simplified] = {}
    for reply in found.questions:
        replies.setdefault(reply.number, reply)
    kept = []
    for number, qa in enumerate(questions, start=1):
        reply = replies.get(number)
        if reply is None:
            ctx.log.drop(SIMPLIFY, qa.key, f"not simplified: number {number} is missing from the reply")
            continue
        question, answer, vague = (
            _one_line(reply.question),
            _one_line(reply.answer),
            _one_line(reply.vague_answer),
        )
        why = question_problem(question)
        if why is None and normalise(vague) == normalise(answer):
            why = "vague answer: the same as the answer"
        if why is not None:
            ctx.log.drop(SIMPLIFY, qa.key, f"{why}; {question!r}")
            continue
        qa.question, qa.answer, qa.vague_answer = question, answer, vague
        kept.append(qa)
    return kept


async def simplify(ctx: BuildContext, questions: list[QA]) -> list[QA]:
    """Stage 5: the questions whose simplification passed, in their order."""
    by_segment: dict[str, list[QA]] = {}
    for qa in questions:
        by_segment.setdefault(qa.segment.id, []).append(qa)
    found = await asyncio.gather(*(_simplify_segment(ctx, members) for members in by_segment.values()))
    kept = [qa for members in found for qa in members]
    named = [qa.key for qa in kept if names_kept(qa.verbose_question, qa.question or "")]
    if named:
        shown = ", ".join(named[:5]) + (f" and {len(named) - 5} more" if len(named) > 5 else "")
        ctx.log.note(f"{len(named)} simplified question(s) keep a name of the verbose one: {shown}")
    ctx.log.close(SIMPLIFY, "questions", len(questions), len(kept))
    return kept
