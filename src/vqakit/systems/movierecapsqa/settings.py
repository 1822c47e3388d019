"""The four MovieRecapsQA settings and the two input ablations, as options of one method.

`--method movierecaps --method-arg setting=...` picks the video (the protocol's frame spec is
sampled over it): `recap-segment` <s_r, u_m, Q> (the default), `movie-segment` <s_m, u_m, Q>,
`full-recap` <v_r, u_m, Q>, `full-movie` <v_m, u_m, Q>. In every setting the dialogue is u_m,
the movie subtitles of the aligned movie segment, cut to it and timed from its start.
`--method-arg inputs=frames` sends the frames only, `inputs=dialogue` the dialogue only; the
default `both` sends both. The answer prompt is `mr_answer` (`--method-arg prompt=NAME` or a
prompt file in the benchmark folder replaces it). A sample lacking what the run asks for fails
with the kind `inputs.py` names, never with a stand-in.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
    sent_text,
)
from vqakit.prompts import check_prompt, render_prompt
from vqakit.schema import Benchmark, Prediction, PredictionError, Protocol, Sample
from vqakit.systems.movierecapsqa.inputs import (
    ROLE_NAMES,
    SETTING_VIDEOS,
    InputMissing,
    dialogue_lines,
    is_movierecaps_sample,
    release_fields,
    segment_dialogue,
    setting_spec,
    setting_video,
    window_times,
)
from vqakit.systems.movierecapsqa.protocol import NAME
from vqakit.video import VideoError

Setting = Literal["recap-segment", "movie-segment", "full-recap", "full-movie"]
Inputs = Literal["both", "frames", "dialogue"]
_IMPORT_FLAG = {
    "recap_segment": "--recaps",
    "recap": "--recaps",
    "movie_segment": "--movies",
    "movie": "--movies",
}


class RecapsOptions(BaseModel):
    """Options of `movierecaps`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    setting: Setting = Field("recap-segment", description="the video shown: a segment or a whole video")
    inputs: Inputs = Field("both", description="frames and dialogue, or one of them (the ablations)")
    prompt: str = Field("mr_answer", min_length=1, description="answer prompt name or prompt file")


def check_benchmark(benchmark: Benchmark, options: RecapsOptions) -> None:
    """Refuse a run that no sample could answer: not an imported MovieRecapsQA folder, no sample
    with the setting's video, or none with movie dialogue."""
    ours = [sample for sample in benchmark.samples if is_movierecaps_sample(sample)]
    if not ours:
        raise MethodSetupError(
            f"{NAME}: {benchmark.root} has no MovieRecapsQA samples "
            "(write such a folder with `vqakit import movierecapsqa`)"
        )
    if options.inputs != "dialogue":
        role = SETTING_VIDEOS[options.setting]
        if not any(role in release_fields(sample).get("video_roles", []) for sample in ours):
            raise MethodSetupError(
                f"{NAME} setting={options.setting}: no sample has a {ROLE_NAMES[role]} video; "
                f"import with {_IMPORT_FLAG[role]}, or use inputs=dialogue"
            )
    if options.inputs != "frames" and not any(
        release_fields(sample).get("movie_subtitles") and release_fields(sample).get("movie_window")
        for sample in ours
    ):
        raise MethodSetupError(
            f"{NAME}: no sample has movie subtitles for an aligned movie segment; import with "
            "--subtitles, or use inputs=frames"
        )
    try:
        check_prompt(options.prompt, benchmark.root)
    except ValueError as error:
        raise MethodSetupError(f"{NAME} prompt: {error}") from None


def describe(options: RecapsOptions, protocol: Protocol) -> str:
    """The report header's line on what the model was shown."""
    video = f"{ROLE_NAMES[SETTING_VIDEOS[options.setting]]} frames ({protocol.frames})"
    dialogue = "movie-segment dialogue (movie subtitles, timed from the segment's start)"
    shown = {"both": f"{video} + {dialogue}", "frames": f"{video} only", "dialogue": f"{dialogue} only"}
    return f"{options.setting}: {shown[options.inputs]}, prompt {options.prompt}"


def _frames(sample: Sample, context: MethodContext, options: RecapsOptions) -> FrameRequest | None:
    """The frames the setting shows (named, not decoded), or None for the dialogue alone."""
    if options.inputs == "dialogue":
        return None
    ref = setting_video(sample, options.setting)
    spec = setting_spec(ref, context.protocol)
    if spec is None:
        raise InputMissing("no_frames", f"the frame spec {context.protocol.frames!r} asks for no frames")
    return request_frames(context, context.root / ref.path, spec)


def planned_frames(sample: Sample, context: MethodContext) -> list[FrameRequest]:
    """The frames `movierecaps` will send for a sample (for the runner's plan)."""
    if not is_movierecaps_sample(sample):
        return []
    request = _frames(sample, context, context.options)
    return [request] if request is not None else []


def _gather(
    sample: Sample, context: MethodContext, options: RecapsOptions
) -> tuple[FrameRequest | None, list, list[float], str]:
    """(the frames shown, video parts, frame times in the video, prompt text) for one sample; the
    frames are named, labelled on the window's clock (0 at its start, as the dialogue is)."""
    dialogue = None
    if options.inputs != "frames":
        dialogue = dialogue_lines(segment_dialogue(sample, context.root))
    parts: list = []
    times: list[float] = []
    request = _frames(sample, context, options)
    if request is not None:
        labels = window_times(setting_video(sample, options.setting), request.times_s)
        parts, times = [frames_part(context, request, times_s=labels)], list(request.times_s)
    text = render_prompt(
        options.prompt,
        folder=context.root,
        question=sample.question,
        setting=options.setting,
        frames=bool(parts),
        dialogue=dialogue,
    )
    return request, parts, times, text


@method(
    NAME,
    needs_model=True,
    options=RecapsOptions,
    preflight=check_benchmark,
    describe=describe,
    uses_frames=lambda options: options.inputs != "dialogue",
    plan_frames=planned_frames,
)
async def movierecaps(sample: Sample, context: MethodContext) -> Prediction:
    """MovieRecapsQA: a recap or movie segment, or a whole recap or movie, with the movie dialogue."""
    from vqakit.models import Message

    options: RecapsOptions = context.options
    if context.model is None:
        return Prediction.failed(sample.id, NAME, "no_model", f"{NAME} needs --model")
    model = str(context.model)
    if not is_movierecaps_sample(sample):
        return Prediction.not_applicable(sample.id, NAME, "not a sample of `vqakit import movierecapsqa`")
    try:
        request, parts, times, text = await asyncio.to_thread(_gather, sample, context, options)
        images: list[str] = []
        if request is not None:  # the strip first: it has the frames, decoded or from the store
            strip = frames_strip(context, request)
            images = await keep_strip(context, request.identity, strip, name=sample.id)
        parts = [*parts, text]
        message = await sendable(context, Message.user(*parts))
    except InputMissing as missing:
        return Prediction.failed(sample.id, NAME, missing.kind, str(missing), model=model)
    except VideoError as error:
        return Prediction.failed(sample.id, NAME, "video", str(error), model=model)
    completion = await context.model.complete([message], sample_id=sample.id)
    error = completion.error
    return Prediction(
        sample_id=sample.id,
        method=NAME,
        model=model,
        reply=completion.text,
        reasoning=completion.reasoning,
        frames_s=times,
        latency_s=completion.latency_s,
        input_tokens=completion.usage.input_tokens,
        output_tokens=completion.usage.output_tokens,
        calls=1,
        cached_calls=int(completion.cached),
        prompt=sent_text(parts),
        images=images,
        error=PredictionError(type=error.type, message=error.message) if error is not None else None,
    )
