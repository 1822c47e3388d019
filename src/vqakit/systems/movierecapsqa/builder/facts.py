"""Stage 3: atomic facts of each segment, from its transcript, with the facts of the recap's
previous segment as context to resolve who "he" or "the woman" is.

One journaled step per segment (`facts:<video_id>.<segment_id>`, prompt `mr_build_facts`).
The segments of one recap go in order (each needs the previous one's facts); recaps go side by
side. A fact that breaks a checkable rule (`rules.fact_problem`) or repeats another is dropped
with the rule; a segment whose step fails or keeps no fact is dropped. The context is the kept
facts of the recap's previous segment that has any.
"""

from __future__ import annotations

import asyncio

from pydantic import field_validator

from vqakit.prompts import render_prompt
from vqakit.systems.movierecapsqa.builder.context import BuildContext, Fact, RecapSegment
from vqakit.systems.movierecapsqa.builder.rules import fact_problem, normalise
from vqakit.systems.movierecapsqa.replies import ListReply

FACTS = "3 facts"
STEP = "facts"
PROMPT = "mr_build_facts"


class FactList(ListReply):
    """The reply: `{"facts": [...]}` (a bare list is accepted too)."""

    facts: list[str]

    @field_validator("facts")
    @classmethod
    def _texts(cls, value: list[str]) -> list[str]:
        texts = [" ".join(text.split()) for text in value]
        if not any(texts):
            raise ValueError("no facts listed")
        return texts


def facts_prompt(segment: RecapSegment, previous: list[str]) -> str:
    return render_prompt(
        PROMPT, movie_name=segment.recap.movie_name, narration=segment.narration(), previous_facts=previous
    )


async def _segment_facts(ctx: BuildContext, segment: RecapSegment, previous: list[str]) -> bool:
    """Ask for the segment's facts and keep those that pass the rules; False when none is kept."""
    found, error = await ctx.steps.ask(ctx.llm, STEP, segment.id, facts_prompt(segment, previous), FactList)
    if found is None:
        ctx.log.drop(FACTS, segment.id, f"facts step failed: {error}")
        return False
    seen: dict[str, int] = {}
    for index, text in enumerate(found.facts, start=1):
        item = f"{segment.id}:fact{index}"
        if not text:
            continue
        why = fact_problem(text)
        if why is None and normalise(text) in seen:
            why = f"duplicate fact: repeats fact {seen[normalise(text)]}"
        if why is not None:
            ctx.log.drop(FACTS, item, f"{why}; {text!r}")
            continue
        seen[normalise(text)] = index
        segment.facts.append(Fact(len(segment.facts) + 1, text))
    if not segment.facts:
        ctx.log.drop(FACTS, segment.id, "no facts: every fact broke a rule")
        return False
    return True


async def extract_facts(ctx: BuildContext, segments: list[RecapSegment]) -> list[RecapSegment]:
    """Stage 3: the segments that kept at least one fact, in their order."""
    by_recap: dict[str, list[RecapSegment]] = {}
    for segment in segments:
        by_recap.setdefault(segment.recap.video_id, []).append(segment)

    async def one_recap(members: list[RecapSegment]) -> list[RecapSegment]:
        kept, previous = [], []
        for segment in members:
            if await _segment_facts(ctx, segment, previous):
                kept.append(segment)
                previous = [fact.text for fact in segment.facts]
        return kept

    found = await asyncio.gather(*(one_recap(members) for members in by_recap.values()))
    kept = [segment for members in found for segment in members]
    ctx.log.close(FACTS, "segments -> facts", len(segments), sum(len(s.facts) for s in kept))
    return kept
