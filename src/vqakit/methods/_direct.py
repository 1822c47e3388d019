"""`direct` and `blind`: one model call per sample, with or without frames."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace

from vqakit.methods._frames import FrameRequest
from vqakit.methods._named import frames_part, frames_strip, known_frames, request_frames, sendable
from vqakit.methods._registry import MethodContext, PlannedCall, method
from vqakit.methods._sent import keep_strip, save_strip, sent_images, sent_text
from vqakit.methods._video_input import VideoOptions, sent_video, video_parts
from vqakit.prompts import render_prompt
from vqakit.schema import Fps, Prediction, PredictionError, Sample, Timestamps, Uniform, parse_sampling
from vqakit.scoring import format_options


def _numbered(prompt_name: str) -> bool:
    """Prompts whose name says `numbered` show options as (1)..(N), as Minerva-Ego does."""
    return "numbered" in prompt_name


def _subtitle_context(sample: Sample, context: MethodContext) -> str:
    if not (context.protocol.subtitles and sample.subtitles):
        return ""
    from vqakit.models import clock
    from vqakit.video import cues_between, read_subtitles

    ref = sample.videos[0] if sample.videos else None
    start = ref.start_s or 0.0 if ref else 0.0
    end = ref.end_s if ref and ref.end_s is not None else float("inf")
    cues = cues_between(read_subtitles(context.root / sample.subtitles), start, end)
    lines = [f"{clock(c.start_s)} {c.text}".replace("\n", " ") for c in cues]
    return render_prompt("context_subtitles", lines=lines) + "\n\n" if lines else ""


def build_prompt(sample: Sample, context: MethodContext) -> str:
    name = context.protocol.prompt if sample.choices is not None else "open_short"
    if sample.choices is None and name.startswith("mcq"):
        name = "open_short"
    fields = {"question": sample.question, "context": _subtitle_context(sample, context)}
    if sample.choices is not None:
        fields["options"] = format_options(sample.choices, "numbers" if _numbered(name) else "letters")
    return render_prompt(name, folder=context.root, **fields)


def window_spec(sample: Sample, spec_text: str):
    spec = parse_sampling(spec_text)
    ref = sample.videos[0]
    if isinstance(spec, Uniform | Fps) and spec.start_s is None and spec.end_s is None:
        spec = replace(spec, start_s=ref.start_s, end_s=ref.end_s)
    return spec


def frame_request(sample: Sample, context: MethodContext) -> FrameRequest | None:
    """The frames `direct` sends for a sample (named, not decoded), or None when the protocol
    asks for none. VideoError when the video cannot be read."""
    spec = window_spec(sample, context.protocol.frames)
    if (isinstance(spec, Uniform) and spec.n == 0) or (isinstance(spec, Timestamps) and not spec.times_s):
        return None
    return request_frames(context, context.root / sample.videos[0].path, spec)


async def _frame_request(sample: Sample, context: MethodContext) -> FrameRequest | None:
    """`frame_request`, taken from what the runner planned where it can (no thread needed),
    else made in a worker thread (indexing a video reads the file)."""
    spec = window_spec(sample, context.protocol.frames)
    known = known_frames(context, context.root / sample.videos[0].path, spec)
    return known if known is not None else await asyncio.to_thread(frame_request, sample, context)


def planned_frames(sample: Sample, context: MethodContext) -> list[FrameRequest]:
    """What `direct` will ask of the frame provider for this sample (for the runner's plan)."""
    request = frame_request(sample, context) if sample.videos else None
    return [request] if request is not None else []


def planned_calls(sample: Sample, context: MethodContext) -> list[PlannedCall]:
    """The one call `direct` makes: its prompt and frames (or the video, with --input video)."""
    if context.protocol.input == "video":
        return [PlannedCall(build_prompt(sample, context), video=True)]
    return [PlannedCall(build_prompt(sample, context), tuple(planned_frames(sample, context)))]


def blind_calls(sample: Sample, context: MethodContext) -> list[PlannedCall]:
    """The one call `blind` makes: its prompt, no frames."""
    return [PlannedCall(build_prompt(sample, context))]


@dataclass
class Visual:
    """What a method shows the model: message parts, the times of the frames sent and, for
    frames named rather than held, how to get their strip."""

    parts: list
    times: list[float]
    identity: str | None = None  # of the frames, when they are named
    strip: Callable[[], Awaitable[bytes]] | None = None  # their strip (JPEG), made once


async def _frame_parts(sample: Sample, context: MethodContext) -> Visual:
    request = await _frame_request(sample, context)
    if request is None:
        return Visual([], [])
    strip = frames_strip(context, request)
    return Visual([frames_part(context, request)], list(request.times_s), request.identity, strip)


Shown = tuple[list, list[float]] | Visual
VisualFn = Callable[[Sample, MethodContext], Shown] | Callable[[Sample, MethodContext], Awaitable[Shown]]


async def ask_model(sample: Sample, context: MethodContext, name: str, visual: VisualFn | None) -> Prediction:
    """One model call: `visual` builds the video parts and the times of the frames sent (a
    `Visual`, or the pair); a plain function runs in a worker thread, an async one on the loop."""
    from vqakit.models import Message

    if context.model is None:
        return Prediction.failed(sample.id, name, "no_model", f"{name} needs --model")
    visual_parts: list = []
    times: list[float] = []
    images: list[str] | None = None  # the strips kept in the run folder
    if visual is not None:
        if not sample.videos:
            return Prediction.failed(
                sample.id,
                name,
                "no_video",
                "the sample has no video; use a retrieval method",
                model=str(context.model),
            )
        try:
            if inspect.iscoroutinefunction(visual):
                shown = await visual(sample, context)
            else:
                shown = await asyncio.to_thread(visual, sample, context)
            shown = shown if isinstance(shown, Visual) else Visual(*shown)
            visual_parts, times = shown.parts, shown.times
            if shown.identity is not None and shown.strip is not None:
                images = await keep_strip(context, shown.identity, shown.strip)
        except Exception as error:
            return Prediction.failed(sample.id, name, "video", str(error), model=str(context.model))
    parts = [*visual_parts, build_prompt(sample, context)]
    if images is None:
        images = await asyncio.to_thread(save_strip, context, sample.id, sent_images(visual_parts))
    try:
        message = await sendable(context, Message.user(*parts))
    except Exception as error:
        return Prediction.failed(sample.id, name, "video", str(error), model=str(context.model))
    completion = await context.model.complete([message], sample_id=sample.id)
    base = {
        "sample_id": sample.id,
        "method": name,
        "model": str(context.model),
        "reply": completion.text,
        "reasoning": completion.reasoning,
        "frames_s": times,
        "latency_s": completion.latency_s,
        "input_tokens": completion.usage.input_tokens,
        "output_tokens": completion.usage.output_tokens,
        "calls": 1,
        "cached_calls": int(completion.cached),
        "prompt": sent_text(parts),
        "images": images,
        "video": sent_video(visual_parts),
    }
    if completion.error is not None:
        return Prediction(
            **base, error=PredictionError(type=completion.error.type, message=completion.error.message)
        )
    if sample.choices is None:
        return Prediction(**base)
    from vqakit.scoring import extract_choice  # its patterns are compiled once a reply comes

    numbered = _numbered(context.protocol.prompt)
    extraction = extract_choice(
        completion.text, len(sample.choices), choices=sample.choices, numbered=numbered
    )
    return Prediction(
        **base,
        choice=extraction.choice,
        extraction=extraction.rule if extraction.choice is not None else extraction.reason,
    )


@method(
    "direct",
    needs_model=True,
    options=VideoOptions,
    takes_video=True,
    plan_frames=planned_frames,
    plan_calls=planned_calls,
)
async def direct(sample: Sample, context: MethodContext) -> Prediction:
    """Sampled frames (or the video, with --input video), the question and its options, one model call."""
    visual = video_parts if context.protocol.input == "video" else _frame_parts
    return await ask_model(sample, context, "direct", visual)


@method("blind", needs_model=True, uses_frames=False, plan_calls=blind_calls)
async def blind(sample: Sample, context: MethodContext) -> Prediction:
    """The question and its options without the video (a text-only control)."""
    return await ask_model(sample, context, "blind", None)
