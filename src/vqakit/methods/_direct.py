"""`direct` and `blind`: one model call per sample, with or without frames."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace

from vqakit.methods._base import MethodContext, method
from vqakit.prompts import render_prompt
from vqakit.schema import Fps, Prediction, PredictionError, Sample, Timestamps, Uniform, parse_sampling
from vqakit.scoring import LETTERS, extract_choice


def _numbered(prompt_name: str) -> bool:
    """Prompts whose name says `numbered` show options as (1)..(N), as Minerva-Ego does."""
    return "numbered" in prompt_name


def _options(choices: list[str], numbered: bool = False) -> str:
    if numbered:
        return "\n".join(f"({i + 1}) {text}" for i, text in enumerate(choices))
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(choices))


def _subtitle_context(sample: Sample, context: MethodContext) -> str:
    if not (context.protocol.subtitles and sample.subtitles):
        return ""
    from vqakit.models import clock
    from vqakit.video import cues_between, read_subtitles

    ref = sample.videos[0] if sample.videos else None
    start = ref.start_s or 0.0 if ref else 0.0
    end = ref.end_s if ref and ref.end_s is not None else float("inf")
    cues = cues_between(read_subtitles(context.root / sample.subtitles), start, end)
    lines = "\n".join(f"{clock(c.start_s)} {c.text}".replace("\n", " ") for c in cues)
    return f"Subtitles:\n{lines}\n\n" if lines else ""


def build_prompt(sample: Sample, context: MethodContext) -> str:
    name = context.protocol.prompt if sample.choices is not None else "open_short"
    if sample.choices is None and name.startswith("mcq"):
        name = "open_short"
    fields = {"question": sample.question, "context": _subtitle_context(sample, context)}
    if sample.choices is not None:
        fields["options"] = _options(sample.choices, _numbered(name))
    return render_prompt(name, **fields)


def _window_spec(sample: Sample, spec_text: str):
    spec = parse_sampling(spec_text)
    ref = sample.videos[0]
    if isinstance(spec, Uniform | Fps) and spec.start_s is None and spec.end_s is None:
        spec = replace(spec, start_s=ref.start_s, end_s=ref.end_s)
    return spec


def _frames(sample: Sample, context: MethodContext):
    from vqakit.models import Frames
    from vqakit.video import Resize, sample_frames

    spec = _window_spec(sample, context.protocol.frames)
    if (isinstance(spec, Uniform) and spec.n == 0) or (isinstance(spec, Timestamps) and not spec.times_s):
        return None
    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    frames = sample_frames(context.root / sample.videos[0].path, spec, resize=resize)
    return Frames(tuple(f.image for f in frames), tuple(f.time_s for f in frames))


def _frame_parts(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
    frames = _frames(sample, context)
    return ([frames], list(frames.times_s)) if frames is not None else ([], [])


async def _ask(
    sample: Sample,
    context: MethodContext,
    name: str,
    visual: Callable[[Sample, MethodContext], tuple[list, list[float]]] | None,
) -> Prediction:
    """One model call: `visual` builds the video parts (and the times of the frames sent)."""
    from vqakit.models import Message

    if context.model is None:
        return Prediction(
            sample_id=sample.id,
            method=name,
            error=PredictionError(type="no_model", message=f"{name} needs --model"),
        )
    visual_parts: list = []
    times: list[float] = []
    if visual is not None:
        if not sample.videos:
            return Prediction(
                sample_id=sample.id,
                method=name,
                model=str(context.model),
                error=PredictionError(
                    type="no_video", message="the sample has no video; use a retrieval method"
                ),
            )
        try:
            visual_parts, times = await asyncio.to_thread(visual, sample, context)
        except Exception as error:
            return Prediction(
                sample_id=sample.id,
                method=name,
                model=str(context.model),
                error=PredictionError(type="video", message=str(error)),
            )
    parts = [*visual_parts, build_prompt(sample, context)]
    completion = await context.model.complete([Message.user(*parts)], sample_id=sample.id)
    base = {
        "sample_id": sample.id,
        "method": name,
        "model": str(context.model),
        "reply": completion.text,
        "frames_s": times,
        "latency_s": completion.latency_s,
        "input_tokens": completion.usage.input_tokens,
        "output_tokens": completion.usage.output_tokens,
    }
    if completion.error is not None:
        return Prediction(
            **base, error=PredictionError(type=completion.error.type, message=completion.error.message)
        )
    if sample.choices is None:
        return Prediction(**base)
    numbered = _numbered(context.protocol.prompt)
    extraction = extract_choice(
        completion.text, len(sample.choices), choices=sample.choices, numbered=numbered
    )
    return Prediction(
        **base,
        choice=extraction.choice,
        extraction=extraction.rule if extraction.choice is not None else extraction.reason,
    )


@method("direct", needs_model=True)
async def direct(sample: Sample, context: MethodContext) -> Prediction:
    return await _ask(sample, context, "direct", _frame_parts)


@method("blind", needs_model=True)
async def blind(sample: Sample, context: MethodContext) -> Prediction:
    return await _ask(sample, context, "blind", None)
