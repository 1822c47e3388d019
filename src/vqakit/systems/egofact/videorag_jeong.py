"""`videorag-jeong`: VideoRAG (Jeong et al., 2025) as the EgoFact paper ran it (appendix D.2.2),
one of its Table-3 baselines.

    retrieve  the top `top_clips` clips for the question as asked (no rewriting): by the index's
              clip vectors (mean frame embeddings of the image embedder) when the index is visual,
              else by the clip descriptions with the text embedder (`retrieval.clip_source` says
              which); and the top `top_passages` passages for the question with the text embedder
    show      `frames` frames in all, split evenly over the retrieved clips (the better-ranked
              clips take what does not divide), uniform over each clip, given directly to the
              vision model with the passages and the question (`videorag_answer`): no clip is
              described first, unlike `rag`
    read      the reply with the usual answer extraction (the prompt asks for the letter only)

Everything retrieved and shown is kept in `Prediction.retrieval` in the shape of the `rag`
methods (`clips`, `clip_scores`, `passages`, `passage_scores`, `frames_s` per clip), so the
retrieval diagnostics and the report's sample cards read it unchanged; the frames sent are kept
as one strip per clip (`rag.clip_strip`).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from vqakit.methods import (
    FrameRequest,
    MethodContext,
    frames_part,
    frames_strip,
    keep_strip,
    method,
    request_frames,
    sendable,
    sent_text,
)
from vqakit.prompts import render_prompt
from vqakit.retrieval import passage_text
from vqakit.schema import Benchmark, Prediction, PredictionError, Protocol, Sample
from vqakit.scoring import LETTERS, extract_choice, format_options
from vqakit.systems.egofact.rag import _preflight as retrieval_checks
from vqakit.systems.egofact.rag import clip_strip_key
from vqakit.systems.egofact.rag_retriever import shared_retriever
from vqakit.systems.egofact.rag_steps import RagOptions

NAME = "videorag-jeong"


class VideoRagOptions(BaseModel):
    """Options of `videorag-jeong` (`--method-arg KEY=VALUE`, or the named retrieval flags)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: str | None = None  # index folder; None: the benchmark's default one in the vqakit cache
    text_embedder: str | None = None  # passages (and descriptions); None: the index's (minilm)
    image_embedder: str | None = None  # clip:<...>; None: the index's (none: clips by descriptions)
    approximate: bool = False  # approximate (IVF) search instead of exact
    top_clips: int = Field(5, ge=1)  # clips retrieved for the question
    top_passages: int = Field(5, ge=0)  # passages retrieved for the question
    frames: int = Field(15, ge=1)  # frames shown in all, split evenly over the retrieved clips

    @model_validator(mode="after")
    def _embedder_specs(self) -> VideoRagOptions:
        try:
            self.retrieval()
        except ValidationError as error:
            problems = (str(e["msg"]).removeprefix("Value error, ") for e in error.errors())
            raise ValueError("; ".join(problems)) from None
        return self

    def retrieval(self) -> RagOptions:
        """The same retrieval settings in the `rag` methods' options, for their shared retriever
        (one index and one set of embedders per run, whichever method asks)."""
        return RagOptions(
            index=self.index,
            text_embedder=self.text_embedder,
            image_embedder=self.image_embedder,
            approximate=self.approximate,
            top_clips=self.top_clips,
        )


def frames_per_clip(total: int, clips: int) -> list[int]:
    """`total` frames split evenly over `clips` clips, the first (best-ranked) taking the rest."""
    share, rest = divmod(total, clips) if clips else (0, 0)
    return [share + (1 if rank < rest else 0) for rank in range(clips)]


def _clip_request(context: MethodContext, clip: Any, count: int) -> FrameRequest:
    """`count` frames uniform over the clip (named, not decoded)."""
    from vqakit.schema import Uniform

    spec = Uniform(count, clip.video.start_s, clip.video.end_s)
    return request_frames(context, context.root / clip.video.path, spec)


def answer_prompt(sample: Sample, passages: list[str]) -> str:
    """The paper's prompt: reference passages, the question (with its options), the letter only."""
    fields: dict[str, Any] = {"question": sample.question, "passages": passages, "options": "", "letters": ""}
    if sample.choices is not None:
        letters = list(LETTERS[: len(sample.choices)])
        fields["options"] = format_options(sample.choices)
        fields["letters"] = (
            ", ".join(letters[:-1]) + f", or {letters[-1]}" if len(letters) > 1 else letters[0]
        )
    return render_prompt("videorag_answer", **fields)


async def _retrieve(
    sample: Sample, context: MethodContext, trace: dict[str, Any]
) -> tuple[list[Any], list[Any]]:
    """(clip hits, passage hits) for the question."""
    options: VideoRagOptions = context.options
    retriever = await asyncio.to_thread(shared_retriever, replace(context, options=options.retrieval()))
    trace["clip_source"] = retriever.clip_source
    trace["query"] = sample.question
    clips = await asyncio.to_thread(retriever.search_clips, sample.question, options.top_clips)
    trace["clips"] = [hit.id for hit in clips]
    trace["clip_scores"] = [round(hit.score, 4) for hit in clips]
    passages: list[Any] = []
    benchmark = context.benchmark
    if benchmark is not None and benchmark.passages and options.top_passages:
        passages = await asyncio.to_thread(retriever.search_passages, sample.question, options.top_passages)
        trace["passages"] = [hit.id for hit in passages]
        trace["passage_scores"] = [round(hit.score, 4) for hit in passages]
    return clips, passages


async def _show(
    sample: Sample, context: MethodContext, clip_ids: list[str], trace: dict[str, Any]
) -> tuple[list[Any], list[str]]:
    """(the frames of each retrieved clip, as message parts; the strips kept of them)."""
    benchmark = context.benchmark
    assert benchmark is not None
    parts: list[Any] = []
    strips: list[str] = []
    errors: dict[str, str] = {}
    trace["frames_s"] = {}
    for clip_id, count in zip(clip_ids, frames_per_clip(context.options.frames, len(clip_ids)), strict=True):
        trace["frames_s"][clip_id] = []
        if count == 0:
            continue
        try:
            request = await asyncio.to_thread(_clip_request, context, benchmark.clips[clip_id], count)
            # the strip first: it has the frames (decoded, or from the store), so a clip that
            # cannot be decoded is left out here rather than failing the whole request
            name = clip_strip_key(sample.id, clip_id)
            strips += await keep_strip(context, request.identity, frames_strip(context, request), name=name)
        except Exception as error:  # a clip that cannot be decoded is reported, not fatal
            errors[f"frames:{clip_id}"] = f"video: {error}"
            continue
        trace["frames_s"][clip_id] = list(request.times_s)
        parts.append(frames_part(context, request))
    if errors:
        trace["step_errors"] = errors
    return parts, strips


async def run_videorag_jeong(sample: Sample, context: MethodContext) -> Prediction:
    """Retrieve clips and passages for the question; its frames and passages go to the model at once."""
    from vqakit.models import Message

    if context.model is None:
        return Prediction.failed(sample.id, NAME, "no_model", f"{NAME} needs --model")
    model = str(context.model)
    trace: dict[str, Any] = {"mode": NAME}
    try:
        _, passages = await _retrieve(sample, context, trace)
    except Exception as error:  # an index that cannot be built or searched fails the sample
        kind = "retrieval" if isinstance(error, ValueError) else "index"
        message = f"{type(error).__name__}: {error}"
        return Prediction.failed(sample.id, NAME, kind, message, model=model, retrieval=trace)
    parts, strips = await _show(sample, context, trace["clips"], trace)
    frames_s = [time for times in trace["frames_s"].values() for time in times]
    if not parts:
        return Prediction.failed(
            sample.id, NAME, "video", "no retrieved clip could be decoded", model=model, retrieval=trace
        )
    benchmark = context.benchmark
    assert benchmark is not None
    texts = [passage_text(benchmark.passages[hit.id]).strip() for hit in passages]
    parts.append(answer_prompt(sample, texts))
    try:
        message = await sendable(context, Message.user(*parts))
    except Exception as error:
        return Prediction.failed(sample.id, NAME, "video", str(error), model=model, retrieval=trace)
    completion = await context.model.complete([message], sample_id=sample.id)
    base = {
        "sample_id": sample.id,
        "method": NAME,
        "model": model,
        "reply": completion.text,
        "reasoning": completion.reasoning,
        "prompt": sent_text(parts),
        "frames_s": frames_s,
        "images": strips,
        "retrieval": trace,
        "latency_s": completion.latency_s,
        "input_tokens": completion.usage.input_tokens,
        "output_tokens": completion.usage.output_tokens,
        "calls": 1,
        "cached_calls": int(completion.cached),
    }
    if completion.error is not None:
        error = PredictionError(type=completion.error.type, message=completion.error.message)
        return Prediction(**base, error=error)
    if sample.choices is None:
        return Prediction(**base)
    extraction = extract_choice(completion.text, len(sample.choices), choices=sample.choices)
    how = extraction.rule if extraction.choice is not None else extraction.reason
    return Prediction(**base, choice=extraction.choice, extraction=how)


def _preflight(benchmark: Benchmark, options: VideoRagOptions) -> None:
    """Fail before the run, with the `rag` methods' checks in this method's name: clips to
    retrieve, and embedders that can run (their extras, an API embedder's key)."""
    retrieval_checks(NAME, "rag")(benchmark, options.retrieval())


def _describe(options: VideoRagOptions, protocol: Protocol) -> str:
    """What the model was shown."""
    parts = [
        f"top {options.top_clips} clips for the question",
        f"{options.frames} frames in all shown directly",
        f"top {options.top_passages} passages",
        f"image embedder {options.image_embedder or 'of the index'}",
    ]
    if options.text_embedder:
        parts.append(f"text embedder {options.text_embedder}")
    return ", ".join(parts)


method(
    NAME,
    needs_model=True,
    options=VideoRagOptions,
    preflight=_preflight,
    describe=_describe,
    uses_frames=False,  # its frames come from the retrieved clips (`--method-arg frames=`)
)(run_videorag_jeong)
