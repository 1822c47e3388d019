"""Step 9 of the EgoFact builder: every question must be answered correctly from its gold event
(and passage) (valid); two-hop questions must not be answered without them (non-trivial).
Unambiguity is step 6."""

from __future__ import annotations

import asyncio

from vqakit.builders import check_mcq
from vqakit.retrieval import passage_text
from vqakit.schema import Passage
from vqakit.systems.egofact.builder.context import BuildContext
from vqakit.systems.egofact.builder.questions import blind_filter
from vqakit.systems.egofact.builder.steps import Query

STAGE = "9 reliability"


async def _valid(ctx: BuildContext, query: Query, passages: dict[str, Passage]) -> Query | None:
    check = await check_mcq(
        ctx.steps,
        ctx.llm,
        step="validity",
        item=query.id,
        options=query.options,
        expected=query.answer_index,
        question=query.question,
        prompt="build_validity",
        event=query.target.rewritten,
        anchor=query.anchor.rewritten if query.anchor is not None else None,
        direction=query.direction,
        passage=passage_text(passages[query.passage_id]) if query.passage_id else None,
    )
    if check.error is not None:
        ctx.log.drop(STAGE, query.id, check.error)
        return None
    if not check.correct:
        ctx.log.drop(STAGE, query.id, "not valid: the gold event does not lead to the answer")
        return None
    return query


async def reliability(ctx: BuildContext, queries: list[Query], passages: dict[str, Passage]) -> list[Query]:
    """The questions that pass, sorted by id."""
    valid = [q for q in await asyncio.gather(*(_valid(ctx, q, passages) for q in queries)) if q is not None]
    one_hop = [q for q in valid if q.hop == 1]
    two_hop = await blind_filter(ctx, [q for q in valid if q.hop == 2], STAGE, record=False)
    kept = sorted([*one_hop, *two_hop], key=lambda q: q.id)
    ctx.log.close(STAGE, "questions", len(queries), len(kept))
    return kept
