"""Steps 4-7 of the EgoFact builder: structure the events, turn them into one-hop questions,
drop ambiguous ones, and give the rest six options (gold letters balanced) that a text-only
model cannot solve."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.builders import OptionPool, balance_letters, blind_check
from vqakit.prompts import render_prompt
from vqakit.systems.egofact.builder.context import BuildContext
from vqakit.systems.egofact.builder.inputs import Event
from vqakit.systems.egofact.builder.steps import (
    Distractors,
    Query,
    StructuredEvent,
    Window,
    in_video,
    mentions,
    object_question,
)
from vqakit.systems.egofact.builder.windows import screenshots


async def structure(ctx: BuildContext, windows: list[Window]) -> None:
    """Step 4: every event of the kept windows as a structured event; events without an object
    are dropped."""

    async def one(window: Window, number: int, event: Event) -> None:
        item = f"{window.id}-e{number:02d}"
        prompt = render_prompt("build_structure", text=event.text)
        found, error = await ctx.steps.ask(ctx.llm, "structure", item, prompt, StructuredEvent)
        if found is None:
            ctx.log.drop("4 events", item, str(error))
        elif not found.patient_canonical:
            ctx.log.drop("4 events", item, f"no object: {event.text!r}")
        else:
            window.structured.append((event, found))

    jobs = [one(w, i, e) for w in windows for i, e in enumerate(w.events)]
    await asyncio.gather(*jobs)
    for window in windows:
        window.structured.sort(key=lambda pair: pair[0].time_s)
    ctx.log.close("4 events", "events", len(jobs), sum(len(w.structured) for w in windows))


def _candidates(ctx: BuildContext, window: Window) -> list[Query]:
    """The local question of every structured event and the temporal questions (before/after)
    of every pair of consecutive events at most `temporal_gap_s` apart."""
    head = in_video(window.narration)  # type: ignore[arg-type]

    def query(query_id: str, event: Event, target: StructuredEvent, stem: str, **temporal: Any) -> Query:
        grounding, joint = ("temporal", ". ") if temporal else ("local", ", ")
        return Query(
            id=query_id,
            window=window,
            grounding=grounding,
            target=target,
            target_time_s=event.time_s,
            question=f"{head}{joint}{stem}",
            stem=stem,
            answer=str(target.patient_canonical),
            **temporal,
        )

    found = [
        query(f"{window.id}-L{number:02d}", event, target, object_question(target))
        for number, (event, target) in enumerate(window.structured)
    ]
    pairs = zip(window.structured, window.structured[1:], strict=False)
    for number, ((first_event, first), (second_event, second)) in enumerate(pairs):
        gap = second_event.time_s - first_event.time_s
        if not 0 < gap <= ctx.config.temporal_gap_s:
            continue
        for direction, (target, target_event), (anchor, anchor_event) in (
            ("before", (first, first_event), (second, second_event)),
            ("after", (second, second_event), (first, first_event)),
        ):
            stem = f"{direction.capitalize()} {anchor.rewritten.rstrip('.')}, {object_question(target)}"
            found.append(
                query(
                    f"{window.id}-T{number:02d}{direction[0]}",
                    target_event,
                    target,
                    stem,
                    anchor=anchor,
                    anchor_time_s=anchor_event.time_s,
                    direction=direction,
                )
            )
    return found


def templates(ctx: BuildContext, windows: list[Window]) -> list[Query]:
    """Step 5: template questions; one that names its answer, repeats another or reads the same
    as one with another answer in its clip is dropped."""
    stage = "5 templates"
    candidates = [query for window in windows for query in _candidates(ctx, window)]
    kept: list[Query] = []
    by_text: dict[tuple[str, str], list[Query]] = {}
    for query in candidates:
        if mentions(query.question, query.answer):
            ctx.log.drop(stage, query.id, f"names its answer: {query.answer!r}")
            continue
        by_text.setdefault((query.window.id, query.question.lower()), []).append(query)
    for same in by_text.values():
        answers = {q.answer.lower() for q in same}
        if len(answers) > 1:
            for query in same:
                ctx.log.drop(
                    stage, query.id, f"ambiguous in its clip: one question, answers {sorted(answers)}"
                )
            continue
        kept.append(same[0])
        for query in same[1:]:
            ctx.log.drop(stage, query.id, f"duplicate of {same[0].id}")
    kept.sort(key=lambda q: q.id)
    ctx.log.close(stage, "questions", len(candidates), len(kept))
    return kept


def _clip_vectors(ctx: BuildContext, videos: dict[str, Path], windows: list[Window]) -> dict[str, np.ndarray]:
    if ctx.image_embedder is None:
        ctx.log.note(
            "no --image-embedder: clip similarity in step 6 compares the text vectors of the detailed "
            "narrations"
        )
        vectors = ctx.text_embedder.embed([w.narration.detailed for w in windows])  # type: ignore[union-attr]
        return {w.id: v for w, v in zip(windows, vectors, strict=True)}
    found = {}
    for window in windows:
        frames = screenshots(ctx, videos, window)
        mean = ctx.image_embedder.embed_images([f.image for f in frames]).mean(axis=0)
        found[window.id] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return found


def disambiguate(ctx: BuildContext, videos: dict[str, Path], queries: list[Query]) -> list[Query]:
    """Step 6: a question is dropped when another clip is visually similar, has an event with a
    similar action and a different object."""
    stage = "6 disambiguation"
    config = ctx.config
    windows = {q.window.id: q.window for q in queries}
    if len(windows) < 2:
        ctx.log.close(stage, "questions", len(queries), len(queries))
        return queries
    clips = _clip_vectors(ctx, videos, list(windows.values()))
    actions = ctx.text_embedder.embed([f"{q.target.agent} {q.target.action_phrase}" for q in queries])
    objects = ctx.text_embedder.embed([q.answer for q in queries])
    kept = []
    for i, query in enumerate(queries):
        clash = next(
            (
                other
                for j, other in enumerate(queries)
                if other.window.id != query.window.id
                and float(clips[query.window.id] @ clips[other.window.id]) > config.visual_similarity
                and float(actions[i] @ actions[j]) > config.action_similarity
                and float(objects[i] @ objects[j]) < config.object_similarity
            ),
            None,
        )
        if clash is None:
            kept.append(query)
        else:
            reason = f"ambiguous: similar clip {clash.window.id} has a similar action on {clash.answer!r}"
            ctx.log.drop(stage, query.id, reason)
    ctx.log.close(stage, "questions", len(queries), len(kept))
    return kept


async def distractors(ctx: BuildContext, queries: list[Query]) -> list[Query]:
    """Step 7: five wrong options and a quality score per question; kept at `min_quality`, the
    gold letters spread evenly, then the blind filter."""
    stage = "7 distractors"
    min_quality = ctx.config.min_quality
    wrong_options: dict[str, list[str]] = {}

    async def one(query: Query) -> Query | None:
        prompt = render_prompt("build_distractors", question=query.question, answer=query.answer)
        found, error = await ctx.steps.ask(ctx.llm, "distractors", query.id, prompt, Distractors)
        if found is None:
            ctx.log.drop(stage, query.id, str(error))
            return None
        options = [o.strip() for o in found.options]
        lowered = [o.lower() for o in options]
        if len(set(lowered)) != 6:
            ctx.log.drop(stage, query.id, f"invalid options: repeated option in {options}")
            return None
        if query.answer.lower() not in lowered:
            reason = f"invalid options: the answer {query.answer!r} is not among {options}"
            ctx.log.drop(stage, query.id, reason)
            return None
        if found.score < min_quality:
            ctx.log.drop(stage, query.id, f"low quality: score {found.score:g} < {min_quality:g}")
            return None
        query.quality = found.score
        wrong_options[query.id] = [o for o in options if o.lower() != query.answer.lower()]
        return query

    kept = [q for q in await asyncio.gather(*(one(q) for q in queries)) if q is not None]
    pools = [OptionPool(q.id, q.answer, wrong_options[q.id]) for q in kept]
    for query, placed in zip(kept, balance_letters(pools, ctx.config.seed), strict=True):
        query.options, query.answer_index = placed.options, placed.answer_index
    ctx.log.close(stage, "questions", len(queries), len(kept))
    return await blind_filter(ctx, kept, "7 blind filter")


async def blind_filter(
    ctx: BuildContext, queries: list[Query], stage: str, *, record: bool = True
) -> list[Query]:
    """Questions a text-only model answers correctly from question and options are dropped;
    `record=False` leaves the stage to the caller (step 9 counts it in its own)."""

    async def one(query: Query) -> Query | None:
        check = await blind_check(
            ctx.steps,
            ctx.llm,
            item=query.id,
            question=query.question,
            options=query.options,
            expected=query.answer_index,
            prompt="build_blind",
        )
        if check.error is not None:
            ctx.log.drop(stage, query.id, check.error)
            return None
        if check.correct:
            ctx.log.drop(stage, query.id, "answered without the video")
            return None
        return query

    kept = [q for q in await asyncio.gather(*(one(q) for q in queries)) if q is not None]
    if record:
        ctx.log.close(stage, "questions", len(queries), len(kept))
    return kept
