"""What the retrieval methods describe: the units found for a sample, each a clip and a time
window in it.

    rag           the top clips for the rewritten query, whole
    rag+localize  the top clips, each cut to the `window_s` window whose frames best match the
                  anchor event a model step names (moved `shift_s` for before/after)
    rag+best-piece  the top clips, each cut to its fixed `window_s` piece that best matches the
                  rewritten query
    rag+split     the Video Split baseline: every clip is cut into fixed `window_s` pieces and the
                  top pieces of all clips are retrieved (a piece's vector is the mean of its
                  frames'), so two pieces of one clip may both be described
    oracle-clip   the gold clips, whole

Frames inside a clip are scored by the localize embedder (`RagOptions.localize_embedder`, by
default the retrieval image embedder). What was found goes into the trace: `clips` (the clips
retrieved, or the clips of the retrieved pieces, best first), `clip_scores` or `pieces` and
`piece_scores`, and `windows` (seconds of the video, by clip, or by piece for rag+split).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from typing import Any

from vqakit.methods import MethodContext
from vqakit.models import EmbeddingError
from vqakit.prompts import render_prompt
from vqakit.schema import Clip, Sample
from vqakit.systems.egofact.rag_keywords import ClipKeywords, clip_query, keywords_prompt
from vqakit.systems.egofact.rag_steps import (
    Localization,
    Mode,
    RewrittenQuery,
    StepCosts,
    StepFailed,
    structured_step,
)


@dataclass(frozen=True)
class Unit:
    """One described part of a clip: `id` is the clip's id, or the piece's (rag+split)."""

    id: str
    clip: Clip
    window: tuple[float | None, float | None]


def _whole(clip: Clip) -> Unit:
    return Unit(clip.id, clip, (clip.video.start_s, clip.video.end_s))


def _seconds(window: tuple[float | None, float | None]) -> list[float | None]:
    return [None if t is None else round(t, 3) for t in window]


async def find_units(
    sample: Sample,
    context: MethodContext,
    costs: StepCosts,
    retriever: Any,
    mode: Mode,
    trace: dict[str, Any],
) -> list[Unit]:
    """The units to describe, best first (see the module docstring)."""
    benchmark = context.benchmark
    assert benchmark is not None
    if mode == "oracle":
        if not sample.gold_clips:
            raise StepFailed("no_gold_clips", "oracle-clip needs gold_clips on the sample")
        trace["clips"] = list(sample.gold_clips)
        return [_whole(benchmark.clips[clip_id]) for clip_id in sample.gold_clips]
    prompt = render_prompt("rag_rewrite", question=sample.question)
    rewritten = await structured_step(
        context, costs, "rewrite", f"{sample.id}:rewrite", prompt, RewrittenQuery
    )
    query = rewritten.query if rewritten is not None else sample.question
    if context.options.keywords:
        found = await structured_step(
            context, costs, "keywords", f"{sample.id}:keywords", keywords_prompt(sample), ClipKeywords
        )
        trace["keywords"] = found.keywords if found is not None else []
        query = clip_query(query, trace["keywords"])
    trace["query"] = query
    k, window_s = context.options.top_clips, context.options.window_s
    try:
        if mode == "split":
            hits = await asyncio.to_thread(retriever.search_pieces, query, k, window_s)
        else:
            hits = await asyncio.to_thread(retriever.search_clips, query, k)
    except (ValueError, EmbeddingError) as error:  # no index to search, or an embeddings API failed
        raise StepFailed("retrieval", str(error)) from None
    if mode == "split":
        units = [
            Unit(hit.id, benchmark.clips[hit.extra["clip"]], (hit.extra["start_s"], hit.extra["end_s"]))
            for hit in hits
        ]
        trace["clip_source"] = "pieces"
        trace["pieces"] = [unit.id for unit in units]
        trace["piece_scores"] = [round(hit.score, 4) for hit in hits]
        trace["clips"] = list(dict.fromkeys(unit.clip.id for unit in units))
        trace["windows"] = {unit.id: _seconds(unit.window) for unit in units}
        return units
    trace["clip_scores"] = [round(hit.score, 4) for hit in hits]
    trace["clips"] = [hit.id for hit in hits]
    units = [_whole(benchmark.clips[hit.id]) for hit in hits]
    if mode in ("localize", "best-piece"):
        units = await _place_windows(sample, context, costs, retriever, mode, units, query, trace)
    return units


async def _place_windows(
    sample: Sample,
    context: MethodContext,
    costs: StepCosts,
    retriever: Any,
    mode: Mode,
    units: list[Unit],
    query: str,
    trace: dict[str, Any],
) -> list[Unit]:
    """Each clip cut to its localized window (rag+localize) or its best fixed piece (rag+best-piece)."""
    options = context.options
    if mode == "localize":
        prompt = render_prompt("rag_localize", question=sample.question)
        step = f"{sample.id}:localize"
        where = await structured_step(context, costs, "localize", step, prompt, Localization)
        where = where or Localization(description=sample.question, position="within")
        trace["localization"] = where.model_dump()

        def window(clip_id: str) -> tuple[float, float]:
            return retriever.localize(
                clip_id, where.description, options.window_s, where.position, options.shift_s
            )
    else:

        def window(clip_id: str) -> tuple[float, float]:
            return retriever.best_piece(clip_id, query, options.window_s)

    try:
        placed = [replace(unit, window=await asyncio.to_thread(window, unit.id)) for unit in units]
    except ValueError as error:
        raise StepFailed("localization", str(error)) from None
    trace["windows"] = {unit.id: _seconds(unit.window) for unit in placed}
    return placed
