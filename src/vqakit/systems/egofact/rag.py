"""Retrieval-augmented answering over a clip corpus and a passage corpus (EgoFact).

Every method here runs the same pipeline and differs only in what it retrieves and which part
of each clip it describes (`rag_units`):

    rag             rewrite the question into "A video that ..." and retrieve the top clips;
                    describe each clip from uniform frames over the whole clip
    rag+localize    as rag, but a model step names the anchor event and its position
                    (before / after / within); inside each clip the frames (embedded at 2 fps in
                    the index, scored by the localize embedder) are scored against that
                    description and the frames come from the best `window_s` window, moved
                    `shift_s` for before/after questions
    rag+best-piece  as rag, but each retrieved clip is cut into fixed `window_s` pieces and the
                    piece that best matches the rewritten query is described
    rag+split       the paper's Video Split baseline: the fixed `window_s` pieces of every clip are
                    the retrieval units; the top `top_clips` pieces are retrieved and each is
                    described from the frame budget
    oracle-clip     the gold clips, described whole (the upper bound for clip retrieval)

Then, for two-hop questions, one "A passage about ..." query per option retrieves one passage
per option; and the model answers from the descriptions and passages with JSON
`{"Answer", "Explanation"}`. A refusal goes to the run's fallback model (see `Model`).

Model steps use sub-ids of the sample (`ID:rewrite`, `ID:localize`, `ID:caption:UNIT` with the
clip id, or the piece id for rag+split, `ID:passage-queries`; the answer uses `ID`), which is
how a replay file scripts each step. Everything retrieved and shown is kept in the prediction's
`retrieval` field; `captions` and `frames_s` there are by clip (the pieces of one clip in time
order), so readers of the gold clip's description work for every method.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from vqakit.methods import (
    FrameRequest,
    MethodContext,
    MethodSetupError,
    frames_part,
    frames_strip,
    keep_strip,
    method,
    request_frames,
    sendable,
)
from vqakit.models import EmbeddingError
from vqakit.prompts import render_prompt
from vqakit.runs import strip_path
from vqakit.schema import Benchmark, Prediction, PredictionError, Protocol, Sample
from vqakit.scoring import format_options
from vqakit.systems.egofact.rag_retriever import shared_retriever
from vqakit.systems.egofact.rag_steps import (
    Mode,
    PassageQueries,
    RagOptions,
    StepCosts,
    StepFailed,
    answer_prompt,
    read_answer,
    structured_step,
)
from vqakit.systems.egofact.rag_units import Unit, find_units


def _clip_request(context: MethodContext, clip: Any, start: float | None, end: float | None) -> FrameRequest:
    """The frames a unit is described from (named, not decoded): uniform over its window."""
    from vqakit.schema import Uniform

    spec = Uniform(context.options.caption_frames, start, end)
    return request_frames(context, context.root / clip.video.path, spec)


async def _caption(
    sample: Sample, context: MethodContext, costs: StepCosts, unit: Unit, keywords: list[str]
) -> tuple[str | None, FrameRequest | None]:
    """(the description of one unit or None, the frames shown or None when none could be read);
    the keyword step's words, if any, are what the description should look out for."""
    from vqakit.models import Message

    try:
        request = await asyncio.to_thread(_clip_request, context, unit.clip, *unit.window)
    except Exception as error:  # a clip that cannot be read is reported, not fatal
        costs.errors[f"caption:{unit.id}"] = f"video: {error}"
        return None, None
    prompt = render_prompt(
        "rag_caption", count=str(len(request.times_s)), question=sample.question, keywords=keywords
    )
    try:
        message = await sendable(context, Message.user(frames_part(context, request), prompt))
    except Exception as error:  # nor one that cannot be decoded
        costs.errors[f"caption:{unit.id}"] = f"video: {error}"
        return None, None
    completion = await context.model.complete([message], sample_id=f"{sample.id}:caption:{unit.id}")
    if completion.error is not None and completion.error.type == "video":  # its frames could not be had
        costs.errors[f"caption:{unit.id}"] = f"video: {completion.error.message}"
        return None, None
    costs.add(completion)
    if completion.error is not None:
        costs.errors[f"caption:{unit.id}"] = f"{completion.error.type}: {completion.error.message}"
        return None, request
    return completion.text, request


async def _describe_units(
    sample: Sample, context: MethodContext, costs: StepCosts, units: list[Unit], trace: dict[str, Any]
) -> tuple[list[str], list[float]]:
    """Describe every unit; (descriptions best first, every frame time shown). The trace gets
    `captions` and `frames_s` by clip, and each clip's frames are kept as one strip (from the
    frame store when a run has made it before)."""
    described = await asyncio.gather(
        *(_caption(sample, context, costs, unit, trace.get("keywords") or []) for unit in units)
    )
    by_clip: dict[str, list[tuple[float, FrameRequest, str | None]]] = {clip: [] for clip in trace["clips"]}
    for unit, (text, request) in zip(units, described, strict=True):
        if request is not None:
            start = request.times_s[0] if request.times_s else 0.0
            by_clip.setdefault(unit.clip.id, []).append((start, request, text))
    captions, frames_s = {}, {}
    for clip_id, parts in by_clip.items():
        parts.sort(key=lambda part: part[0])
        texts = [text.strip() for _, _, text in parts if text is not None]
        if texts:
            captions[clip_id] = "\n\n".join(texts)
        frames_s[clip_id] = [time for _, request, _ in parts for time in request.times_s]
        shown = [request for _, request, _ in parts if request.numbers]
        if shown:
            try:
                strip = frames_strip(context, *shown)
                await keep_strip(context, shown[0].identity, strip, name=clip_strip_key(sample.id, clip_id))
            except Exception as error:  # its frames could not be had after all
                costs.errors[f"strip:{clip_id}"] = f"video: {error}"
                frames_s[clip_id] = []
    trace["captions"] = captions
    trace["frames_s"] = frames_s
    texts = [text for text, _ in described if text is not None]
    return texts, [time for _, request in described if request is not None for time in request.times_s]


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
        try:
            hits = await asyncio.to_thread(
                retriever.search_passages, query, 1, exclude=tuple(hit.id for hit in chosen)
            )
        except EmbeddingError as error:  # an embeddings API that failed for good
            raise StepFailed("retrieval", str(error)) from None
        chosen.extend(hits)
    trace["passage_queries"] = queries
    trace["passages"] = [hit.id for hit in chosen]
    trace["passage_scores"] = [round(hit.score, 4) for hit in chosen]
    return chosen


def _strips(context: MethodContext, sample: Sample, trace: dict[str, Any]) -> list[str]:
    """The saved frame strips of the described clips (`clip_strip` finds a clip's)."""
    if context.artifacts is None:
        return []
    return [clip_strip(sample.id, clip) for clip, times in (trace.get("frames_s") or {}).items() if times]


def clip_strip_key(sample_id: str, clip_id: str) -> str:
    """The key a clip's strip is kept under (`keep_strip`'s name): both ids, unambiguously (as
    `a-b` + `c` and `a` + `b-c` were one name before)."""
    return json.dumps([sample_id, clip_id], ensure_ascii=False)


def clip_strip(sample_id: str, clip_id: str) -> str:
    """Where the strip of a clip's described frames is kept, relative to the run folder."""
    return strip_path(clip_strip_key(sample_id, clip_id))


def legacy_clip_strip(sample_id: str, clip_id: str) -> str:
    """Where runs written before `clip_strip_key` kept it (read, never written)."""
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
        units = await find_units(sample, context, costs, retriever, mode, trace)
        captions, frames_s = await _describe_units(sample, context, costs, units, trace)
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

    prompt = answer_prompt(sample, captions, passages, benchmark)
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


def _preflight(name: str, mode: Mode):
    def check(benchmark: Benchmark, options: RagOptions) -> None:
        """Fail before the run, not once per sample: retrieval needs a clip corpus and a usable
        text embedder (an API one needs its key); rag+split needs the clips' frame embeddings,
        rag+localize and rag+best-piece frame embeddings of the retrieval or localize embedder."""
        from vqakit.models import check_text_embedder
        from vqakit.retrieval import CorpusIndex, default_index_folder

        if not benchmark.clips:
            raise MethodSetupError(
                f"{name} retrieves from corpus/clips.jsonl, and {benchmark.card.name} has no clips"
            )
        stored = CorpusIndex(options.index or default_index_folder(benchmark)).settings
        try:
            check_text_embedder(options.text_embedder or stored.text_embedder, keys=True)
        except ValueError as error:
            raise MethodSetupError(f"{name}: {error}") from None
        if options.image_embedder or stored.image_embedder:
            return
        if mode == "split":
            raise MethodSetupError(
                f"{name} retrieves among pieces of the clips' frames: pass --image-embedder clip:<folder "
                f"of a CLIP/SigLIP/MetaCLIP model>, or first run `vqakit index {benchmark.root} "
                "--image-embedder ...` (clip descriptions cover whole clips and cannot tell pieces apart)"
            )
        if mode in ("localize", "best-piece") and not options.localize_embedder:
            raise MethodSetupError(
                f"{name} scores clip frames against the question: pass --image-embedder clip:<folder of a "
                f"CLIP/SigLIP/MetaCLIP model> (or --method-arg localize_embedder=clip:...), or first run "
                f"`vqakit index {benchmark.root} --image-embedder ...`"
            )

    return check


def _describe(mode: Mode):
    def describe(options: RagOptions, protocol: Protocol) -> str:
        """What the model was shown: the retrieval settings."""
        if mode == "split":
            found = f"top {options.top_clips} pieces of {options.window_s:g} s (of all clips)"
        else:
            found = "gold clips" if mode == "oracle" else f"top {options.top_clips} clips"
        unit = "piece" if mode == "split" else "clip"
        parts = [found, f"{options.caption_frames} frames per {unit}"]
        if mode in ("localize", "best-piece"):
            parts.append(f"window {options.window_s:g} s")
        if mode == "localize":
            parts.append(f"shift {options.shift_s:g} s")
        parts.append(f"image embedder {options.image_embedder or 'of the index'}")
        if mode in ("localize", "best-piece") and options.localize_embedder:
            parts.append(f"localize embedder {options.localize_embedder}")
        if options.text_embedder:
            parts.append(f"text embedder {options.text_embedder}")
        return ", ".join(parts)

    return describe


def _register(name: str, mode: Mode, summary: str) -> None:
    async def run(sample: Sample, context: MethodContext) -> Prediction:
        return await run_rag(sample, context, name, mode)

    run.__doc__ = summary
    method(
        name,
        needs_model=True,
        options=RagOptions,
        preflight=_preflight(name, mode),
        describe=_describe(mode),
        extras=("embed",),
        uses_frames=False,  # each described clip's frames are its own (15 uniform), not --frames
    )(run)


_register("rag", "rag", "Retrieve the top clips (and a passage per option), answer from descriptions.")
_register("rag+localize", "localize", "rag, describing the localized window of each retrieved clip.")
_register("rag+best-piece", "best-piece", "rag, describing the best fixed piece of each retrieved clip.")
_register("rag+split", "split", "Video Split: the fixed pieces of every clip are retrieved and described.")
_register("oracle-clip", "oracle", "The gold clips described whole: the upper bound for clip retrieval.")
