"""Retrieval-augmented answering over a clip corpus and a passage corpus (EgoFact).

Every method here runs the same pipeline and differs only in which clips it looks at and which
part of each clip it describes:

    rag           rewrite the question into "A video that ..." and retrieve the top clips;
                  describe each clip from uniform frames over the whole clip
    rag+localize  as rag, but a model step names the anchor event and its position
                  (before / after / within); inside each clip the frames (embedded at 2 fps in
                  the index) are scored against that description and the frames come from the
                  best `window_s` window, moved `shift_s` for before/after questions
    rag+split     as rag, but each clip is cut into fixed `window_s` pieces and the piece that
                  best matches the rewritten query is described
    oracle-clip   the gold clips, described whole (the upper bound for clip retrieval)

Then, for two-hop questions, one "A passage about ..." query per option retrieves one passage
per option; and the model answers from the clip descriptions and passages with JSON
`{"Answer", "Explanation"}`. A refusal goes to the run's fallback model (see `Model`).

Model steps use sub-ids of the sample (`ID:rewrite`, `ID:localize`, `ID:caption:CLIP`,
`ID:passage-queries`; the answer uses `ID`), which is how a replay file scripts each step.
Everything retrieved and shown is kept in the prediction's `retrieval` field.
"""

from __future__ import annotations

import asyncio
from typing import Any

from vqakit.methods import MethodContext, MethodSetupError, method, save_strip
from vqakit.prompts import render_prompt
from vqakit.runs import strip_path
from vqakit.schema import Benchmark, Prediction, PredictionError, Protocol, Sample
from vqakit.scoring import format_options
from vqakit.systems.egofact.rag_retriever import shared_retriever
from vqakit.systems.egofact.rag_steps import (
    Localization,
    Mode,
    PassageQueries,
    RagOptions,
    RewrittenQuery,
    StepCosts,
    StepFailed,
    answer_prompt,
    read_answer,
    structured_step,
)


def _clip_frames(context: MethodContext, clip: Any, start: float | None, end: float | None) -> Any:
    from vqakit.models import Frames
    from vqakit.schema import Uniform
    from vqakit.video import Resize, sample_frames

    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    frames = sample_frames(
        context.root / clip.video.path, Uniform(context.options.caption_frames, start, end), resize=resize
    )
    return Frames(tuple(f.image for f in frames), tuple(f.time_s for f in frames))


async def _caption(
    sample: Sample,
    context: MethodContext,
    costs: StepCosts,
    clip: Any,
    window: tuple[float | None, float | None],
) -> tuple[str | None, list[float]]:
    from vqakit.models import Message

    try:
        frames = await asyncio.to_thread(_clip_frames, context, clip, *window)
    except Exception as error:  # a clip that cannot be decoded is reported, not fatal
        costs.errors[f"caption:{clip.id}"] = f"video: {error}"
        return None, []
    await asyncio.to_thread(save_strip, context, f"{sample.id}-{clip.id}", list(frames.images))
    prompt = render_prompt("rag_caption", count=str(len(frames.images)), question=sample.question)
    completion = await context.model.complete(
        [Message.user(frames, prompt)], sample_id=f"{sample.id}:caption:{clip.id}"
    )
    costs.add(completion)
    if completion.error is not None:
        costs.errors[f"caption:{clip.id}"] = f"{completion.error.type}: {completion.error.message}"
        return None, list(frames.times_s)
    return completion.text, list(frames.times_s)


async def _passages(
    sample: Sample, context: MethodContext, costs: StepCosts, retriever: Any, trace: dict[str, Any]
) -> list[Any]:
    """One passage per option, each found with that option's "A passage about ..." query."""
    assert sample.choices is not None
    found = await structured_step(
        context,
        costs,
        "passage-queries",
        f"{sample.id}:passage-queries",
        render_prompt("rag_passage_queries", options=format_options(sample.choices, "numbered_list")),
        PassageQueries,
    )
    queries = list(found.queries) if found is not None else []
    if len(queries) != len(sample.choices):
        if found is not None:
            costs.errors["passage-queries"] = f"{len(queries)} queries for {len(sample.choices)} options"
        queries = [render_prompt("rag_passage_query_fallback", option=text) for text in sample.choices]
    chosen: list[Any] = []
    for query in queries:
        hits = await asyncio.to_thread(
            retriever.search_passages, query, 1, exclude=tuple(hit.id for hit in chosen)
        )
        chosen.extend(hits)
    trace["passage_queries"] = queries
    trace["passages"] = [hit.id for hit in chosen]
    trace["passage_scores"] = [round(hit.score, 4) for hit in chosen]
    return chosen


async def _find_clips(
    sample: Sample,
    context: MethodContext,
    costs: StepCosts,
    retriever: Any,
    mode: Mode,
    trace: dict[str, Any],
) -> tuple[list[str], str]:
    """(clip ids, the text clips were retrieved with): the gold clips for the oracle, else the top
    clips for the rewritten question."""
    if mode == "oracle":
        if not sample.gold_clips:
            raise StepFailed("no_gold_clips", "oracle-clip needs gold_clips on the sample")
        return list(sample.gold_clips), sample.question
    prompt = render_prompt("rag_rewrite", question=sample.question)
    rewritten = await structured_step(
        context, costs, "rewrite", f"{sample.id}:rewrite", prompt, RewrittenQuery
    )
    query = rewritten.query if rewritten is not None else sample.question
    trace["query"] = query
    try:
        hits = await asyncio.to_thread(retriever.search_clips, query, context.options.top_clips)
    except ValueError as error:
        raise StepFailed("retrieval", str(error)) from None
    trace["clip_scores"] = [round(hit.score, 4) for hit in hits]
    return [hit.id for hit in hits], query


async def _windows(
    sample: Sample,
    context: MethodContext,
    costs: StepCosts,
    retriever: Any,
    mode: Mode,
    clips: list[Any],
    query: str,
    trace: dict[str, Any],
) -> dict[str, tuple[float | None, float | None]]:
    """The part of each clip to describe: all of it, the localized window, or the best fixed piece."""
    windows: dict[str, tuple[float | None, float | None]] = {
        clip.id: (clip.video.start_s, clip.video.end_s) for clip in clips
    }
    if mode not in ("localize", "split"):
        return windows
    window_s = context.options.window_s
    try:
        if mode == "localize":
            prompt = render_prompt("rag_localize", question=sample.question)
            where = await structured_step(
                context, costs, "localize", f"{sample.id}:localize", prompt, Localization
            )
            where = where or Localization(description=sample.question, position="within")
            trace["localization"] = where.model_dump()
            for clip in clips:
                windows[clip.id] = await asyncio.to_thread(
                    retriever.localize,
                    clip.id,
                    where.description,
                    window_s,
                    where.position,
                    context.options.shift_s,
                )
        else:
            for clip in clips:
                windows[clip.id] = await asyncio.to_thread(retriever.best_piece, clip.id, query, window_s)
    except ValueError as error:
        raise StepFailed("localization", str(error)) from None
    trace["windows"] = {clip_id: [round(a, 3), round(b, 3)] for clip_id, (a, b) in windows.items()}  # type: ignore[arg-type]
    return windows


def _strips(context: MethodContext, sample: Sample, trace: dict[str, Any]) -> list[str]:
    """The saved frame strips of the described clips (`clip_strip` finds a clip's)."""
    if context.artifacts is None:
        return []
    return [clip_strip(sample.id, clip) for clip, times in (trace.get("frames_s") or {}).items() if times]


def clip_strip(sample_id: str, clip_id: str) -> str:
    """Where the strip of a clip's described frames is kept, relative to the run folder."""
    return strip_path(f"{sample_id}-{clip_id}")


async def run_rag(sample: Sample, context: MethodContext, name: str, mode: Mode) -> Prediction:
    from vqakit.models import Message

    if context.model is None:
        return Prediction.failed(sample.id, name, "no_model", f"{name} needs --model")
    model = str(context.model)
    costs = StepCosts()
    trace: dict[str, Any] = {"mode": mode}
    frames_s: list[float] = []
    try:
        try:
            retriever = await asyncio.to_thread(shared_retriever, context)
        except Exception as error:
            raise StepFailed("index", f"{type(error).__name__}: {error}") from None
        benchmark = context.benchmark
        assert benchmark is not None
        trace["clip_source"] = retriever.clip_source
        clip_ids, query = await _find_clips(sample, context, costs, retriever, mode, trace)
        trace["clips"] = clip_ids
        clips = [benchmark.clips[clip_id] for clip_id in clip_ids]
        windows = await _windows(sample, context, costs, retriever, mode, clips, query, trace)
        described = await asyncio.gather(*(_caption(sample, context, costs, c, windows[c.id]) for c in clips))
        captions = {c.id: text for c, (text, _) in zip(clips, described, strict=True) if text is not None}
        frames_s = [time for _, times in described for time in times]
        trace["captions"] = captions
        trace["frames_s"] = {c.id: times for c, (_, times) in zip(clips, described, strict=True)}
        passages: list[Any] = []
        if sample.metadata.hop == 2 and sample.choices is not None and benchmark.passages:
            passages = await _passages(sample, context, costs, retriever, trace)
        if not captions and not passages:
            raise StepFailed("caption", "no retrieved clip could be described")
    except StepFailed as failure:
        if costs.errors:
            trace["step_errors"] = costs.errors
        return Prediction.failed(
            sample.id,
            name,
            failure.kind,
            str(failure),
            model=model,
            retrieval=trace,
            frames_s=frames_s,
            images=_strips(context, sample, trace),
            **costs.fields(),
        )

    prompt = answer_prompt(sample, [captions[c] for c in clip_ids if c in captions], passages, benchmark)
    completion = await context.model.complete([Message.user(prompt)], sample_id=sample.id)
    costs.add(completion)
    if costs.errors:
        trace["step_errors"] = costs.errors
    base = {
        "sample_id": sample.id,
        "method": name,
        "model": model,
        "reply": completion.text,
        "reasoning": completion.reasoning,
        "prompt": prompt,
        "frames_s": frames_s,
        "images": _strips(context, sample, trace),
        "retrieval": trace,
        **costs.fields(),
    }
    if completion.error is not None:
        return Prediction(
            **base, error=PredictionError(type=completion.error.type, message=completion.error.message)
        )
    if sample.choices is None:
        return Prediction(**base)
    choice, how = read_answer(sample, completion.text or "")
    return Prediction(**base, choice=choice, extraction=how)


# -- registration: options, checks before a run, and the report header line -----------------------


def _preflight(name: str, needs_frames: bool):
    def check(benchmark: Benchmark, options: RagOptions) -> None:
        """Fail before the run, not once per sample: retrieval needs a clip corpus, and
        rag+localize / rag+split need clip frame embeddings."""
        from vqakit.retrieval import CorpusIndex, default_index_folder

        if not benchmark.clips:
            raise MethodSetupError(
                f"{name} retrieves from corpus/clips.jsonl, and {benchmark.card.name} has no clips"
            )
        if not needs_frames or options.image_embedder:
            return
        folder = options.index or default_index_folder(benchmark)
        if not CorpusIndex(folder).settings.image_embedder:
            raise MethodSetupError(
                f"{name} scores clip frames against the question: pass --image-embedder clip:<folder of a "
                f"CLIP/SigLIP/MetaCLIP model>, or first run "
                f"`vqakit index {benchmark.root} --image-embedder ...`"
            )

    return check


def _describe(mode: Mode):
    def describe(options: RagOptions, protocol: Protocol) -> str:
        """What the model was shown: the retrieval settings."""
        parts = [
            "gold clips" if mode == "oracle" else f"top {options.top_clips} clips",
            f"{options.caption_frames} frames per clip",
        ]
        if mode in ("localize", "split"):
            parts.append(f"window {options.window_s:g} s")
        if mode == "localize":
            parts.append(f"shift {options.shift_s:g} s")
        parts.append(f"image embedder {options.image_embedder or 'of the index'}")
        return ", ".join(parts)

    return describe


def _register(name: str, mode: Mode, needs_frames: bool, summary: str) -> None:
    async def run(sample: Sample, context: MethodContext) -> Prediction:
        return await run_rag(sample, context, name, mode)

    run.__doc__ = summary
    method(
        name,
        needs_model=True,
        options=RagOptions,
        preflight=_preflight(name, needs_frames),
        describe=_describe(mode),
        extras=("embed",),
    )(run)


_register("rag", "rag", False, "Retrieve the top clips (and a passage per option), answer from descriptions.")
_register("rag+localize", "localize", True, "rag, describing the localized window of each retrieved clip.")
_register("rag+split", "split", True, "rag, describing the best fixed piece of each retrieved clip.")
_register(
    "oracle-clip", "oracle", False, "The gold clips described whole: the upper bound for clip retrieval."
)
