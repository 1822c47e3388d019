"""Step 8 of the EgoFact builder: two-hop questions whose six options are statements about the
option objects, each backed by a how-to passage.

For each option object the best passage above `passage_threshold`; four statements per
object-passage pair (1 factual, 3 counterfactual), verified as a four-option question with the
passage (must be solved) and without it (must not be); three verified pairs make six options
"When <task>. <statement>", where each pair's two statements are set in the task of that pair's
own passage (its "How to ..." title as a gerund phrase: "How to fit a bicycle bell" gives "When
fitting a bicycle bell."), so the options point at three different passages, not at the video.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from vqakit.builders import check_mcq, seeded_random
from vqakit.prompts import render_prompt
from vqakit.retrieval import Row, VectorTable, passage_text
from vqakit.schema import Passage
from vqakit.systems.egofact.builder.context import BuildContext
from vqakit.systems.egofact.builder.steps import Query, Statements, in_video, object_question, sentence

STAGE = "8 two-hop"

_DOUBLED = re.compile(r"(?:qu|[^aeiou])*[aeiou][^aeiouwxy]")  # one vowel, one final consonant: "cut"
_TITLE_TAIL = re.compile(r"\s*(?:[-|]\s*wikihow.*|:\s*\d+\s+\w*\s*steps.*|\([^)]*\))\s*$", re.IGNORECASE)
_HOW_TO = re.compile(r"how\s+to\s+(\S+)(.*)", re.IGNORECASE | re.DOTALL)


def gerund(verb: str) -> str:
    """The -ing form of an English verb: fix -> fixing, make -> making, cut -> cutting, tie -> tying."""
    word = verb.lower()
    if word.endswith("ie"):
        return word[:-2] + "ying"
    if word.endswith("e") and len(word) > 2 and not word.endswith(("ee", "ye", "oe")):
        return word[:-1] + "ing"
    if _DOUBLED.fullmatch(word):
        return word + word[-1] + "ing"
    return word + "ing"


def _plain(word: str) -> str:
    """A title-cased word in lower case; acronyms and mixed-case names ("BMX", "iPhone") kept."""
    return word.lower() if word[:1].isupper() and word[1:] == word[1:].lower() else word


def passage_task(passage: Passage) -> str | None:
    """The task a passage teaches, as a phrase to follow "When": its "How to <verb> ..." title as a
    gerund phrase ("How to Fit a Bicycle Bell (with Pictures)" -> "fitting a bicycle bell"), any
    other title as "it comes to <title>"; None without a title."""
    title = _TITLE_TAIL.sub("", (passage.title or "").strip()).strip().rstrip(".?!").strip()
    if not title:
        return None
    words = title.split()
    long_words = [word for word in words if len(word) > 3]
    if 2 * sum(word[:1].isupper() for word in long_words) > len(long_words):  # "How to Fix a Lighter"
        title = " ".join(_plain(word) for word in words)
    how_to = _HOW_TO.fullmatch(title)
    if how_to is not None:
        return gerund(how_to[1]) + how_to[2]
    return f"it comes to {_plain(title[:1]) + title[1:]}"


class _PairMaker:
    """Object-passage pairs: each is generated and verified once, however many questions use it."""

    def __init__(self, ctx: BuildContext, passages: list[Passage]) -> None:
        self.ctx = ctx
        self.by_id = {p.id: p for p in passages}
        self.table = VectorTable(ctx.folder, "passages")  # in memory only: never saved
        vectors = ctx.text_embedder.embed([passage_text(p) for p in passages])
        self.table.replace_rows([], [Row(p.id, "", v) for p, v in zip(passages, vectors, strict=True)])
        self.tasks: dict[tuple[str, str], asyncio.Task] = {}

    def context_of(self, passage_id: str) -> str | None:
        """The task of a passage, the context its pairs' statements are set in (`passage_task`)."""
        return passage_task(self.by_id[passage_id])

    def passage_for(self, name: str, activity: str) -> str | None:
        """The id of the passage closest to the object in this activity, above the threshold."""
        hits = self.table.search(self.ctx.text_embedder.embed([f"{name}, when {activity}"])[0], 1)
        if hits and hits[0].score > self.ctx.config.passage_threshold:
            return hits[0].id
        return None

    async def pair(self, name: str, passage_id: str) -> Statements | None:
        key = (name.lower(), passage_id)
        if key not in self.tasks:
            self.tasks[key] = asyncio.ensure_future(self._make(name, passage_id))
        return await self.tasks[key]

    async def _make(self, name: str, passage_id: str) -> Statements | None:
        ctx = self.ctx
        item = f"{name.lower().replace(' ', '_')}|{passage_id}"
        text = passage_text(self.by_id[passage_id])
        prompt = render_prompt("build_statements", object=name, passage=text)
        made, error = await ctx.steps.ask(ctx.llm, "statements", item, prompt, Statements)
        if made is None:
            ctx.log.drop(STAGE, item, f"statements: {error}")
            return None
        order = [made.factual, *made.counterfactual]
        seeded_random(ctx.config.seed, item).shuffle(order)
        for with_passage in (True, False):
            check = await check_mcq(
                ctx.steps,
                ctx.llm,
                step="verify-with" if with_passage else "verify-without",
                item=item,
                options=order,
                expected=order.index(made.factual),
                evidence=text if with_passage else None,
                prompt="build_verify",
            )
            if check.error is not None:
                ctx.log.drop(STAGE, item, f"statements: {check.error}")
                return None
            if with_passage and not check.correct:
                reason = "statements not valid: the passage does not single out the true one"
                ctx.log.drop(STAGE, item, reason)
                return None
            if not with_passage and check.correct:
                ctx.log.drop(STAGE, item, "statements trivial: the true one is found without the passage")
                return None
        return made


def _options(
    ctx: BuildContext,
    query: Query,
    found: dict[str, tuple[str, Statements]],
    names: list[str],
    contexts: dict[str, str],
) -> tuple[list[str], list[dict[str, Any]], int] | None:
    """Six options (a counterfactual and the factual statement of each named pair, each prefixed
    "When <task of the pair's passage>.", the answer's pair last before shuffling), the pairs with
    their option indices, and the answer's index."""
    entries: list[tuple[str, str, str]] = []
    used: set[str] = set()
    for name in names:
        passage_id, made = found[name]
        prefix = f"When {contexts[passage_id]}. "
        # the first counterfactual statement no other pair of this question already uses
        false = next((c for c in made.counterfactual if sentence(c).lower() not in used), None)
        if false is None or sentence(made.factual).lower() in used:
            ctx.log.drop(STAGE, query.id, f"repeated statements: the pair of {name!r} repeats another")
            return None
        used.update({sentence(false).lower(), sentence(made.factual).lower()})
        entries.append((name, passage_id, prefix + sentence(false) + "."))
        entries.append((name, passage_id, prefix + sentence(made.factual) + "."))
    order = list(range(len(entries)))
    seeded_random(ctx.config.seed, query.id, "2hop").shuffle(order)
    position = {original: new for new, original in enumerate(order)}
    pairs = [
        {
            "object": entries[k][0],
            "passage": entries[k][1],
            "context": contexts[entries[k][1]],
            "counterfactual": position[k],
            "factual": position[k + 1],
        }
        for k in range(0, len(entries), 2)
    ]
    return [entries[i][2] for i in order], pairs, position[len(entries) - 1]


async def _two_hop(ctx: BuildContext, pairs: _PairMaker, query: Query) -> Query | None:
    activity = query.window.narration.activity  # type: ignore[union-attr]
    found: dict[str, tuple[str, Statements]] = {}
    for name in query.options:
        passage_id = pairs.passage_for(name, activity)
        if passage_id is None:
            continue
        made = await pairs.pair(name, passage_id)
        if made is not None:
            found[name] = (passage_id, made)
    if query.answer not in found:
        ctx.log.drop(STAGE, query.id, f"no verified passage statements for the answer: {query.answer!r}")
        return None
    others = [name for name in query.options if name in found and name != query.answer][:2]
    if len(others) < 2:
        ctx.log.drop(STAGE, query.id, f"too few verified distractor pairs: {len(others)} < 2")
        return None
    activity = activity.strip().rstrip(".")
    names = [*others, query.answer]
    # a passage without a title leaves its pair in the video's activity, as before
    contexts = {found[name][0]: pairs.context_of(found[name][0]) or activity for name in names}
    made = _options(ctx, query, found, names, contexts)
    if made is None:
        return None
    options, pair_records, answer_index = made
    head = in_video(query.window.narration)  # type: ignore[arg-type]
    stem = object_question(query.target, statement=True)
    if query.grounding == "temporal":
        anchor = query.anchor.rewritten.rstrip(".")  # type: ignore[union-attr]
        question = f"{head}. {query.direction.capitalize()} {anchor}, {stem}"  # type: ignore[union-attr]
    else:
        question = f"{head}, {stem}"
    return Query(
        id=f"{query.id}-2h",
        window=query.window,
        grounding=query.grounding,
        target=query.target,
        target_time_s=query.target_time_s,
        anchor=query.anchor,
        anchor_time_s=query.anchor_time_s,
        direction=query.direction,
        question=question,
        stem=stem,
        answer=query.answer,
        options=options,
        answer_index=answer_index,
        quality=query.quality,
        hop=2,
        passage_id=found[query.answer][0],
        pairs=pair_records,
    )


async def two_hop(ctx: BuildContext, queries: list[Query], passages: list[Passage]) -> list[Query]:
    """Step 8: the two-hop question derived from each one-hop question, where passages allow."""
    if not passages:
        ctx.log.close(STAGE, "questions", len(queries), 0)
        return []
    pairs = _PairMaker(ctx, passages)
    made = [q for q in await asyncio.gather(*(_two_hop(ctx, pairs, q) for q in queries)) if q is not None]
    ctx.log.close(STAGE, "questions", len(queries), len(made))
    return made
