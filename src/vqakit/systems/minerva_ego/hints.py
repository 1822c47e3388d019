"""`hints`: `direct` with spatio-temporal hints from the sample's object tracks.

With `temporal` in the style, frame times come from `select_times` (where the tracked objects
are, then uniform); otherwise from the protocol's frame spec. An object is present where it is
annotated, bridging track points at most `max_gap_s` apart (default `DEFAULT_MAX_GAP_S`, 10 s).
Each frame gets the marks of the objects present at its time, drawn (`box`, `circle`,
`contour`, `classes`) and, with `text` (pixels) or `text1000` (Gemini's normalised
[ymin, xmin, ymax, xmax]), written as a line before the frame (prompts `hint_boxes_intro`,
`hint_boxes_frame`); `box+text` does both. Frames are sized as the model receives them (the
protocol's short side, then an API backend's `image_max_side`) before marks are drawn and boxes
written, so text coordinates are those of the image the model sees. Samples without tracks use
the detector path when the run names a detector (option `detector`, e.g. `owlv2:<folder>`): the
answering model lists the objects that would help, hands, people and large static things are
dropped (hint_exclusions.txt), the detector finds the rest at score 0.6 on the sampled frames,
and every style works the same way (detections have no masks: `contour` draws their boxes);
otherwise such samples get plain frames, so the method runs on any benchmark.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from vqakit.methods import MethodContext, ask_model, method, window_spec
from vqakit.schema import Benchmark, Prediction, Protocol, Sample, Timestamps, Uniform
from vqakit.systems.minerva_ego.recall import singular

EXCLUSIONS_FILE = Path(__file__).with_name("hint_exclusions.txt")


def excluded_categories() -> set[str]:
    lines = EXCLUSIONS_FILE.read_text(encoding="utf-8").splitlines()
    return {line.strip().lower() for line in lines if line.strip() and not line.startswith("#")}


def filter_categories(categories: list[str]) -> list[str]:
    """Drop hands, people and large static things (the data file), keeping order, once each."""
    excluded = excluded_categories()
    kept: dict[str, str] = {}
    for name in categories:
        words = [singular(w) for w in re.sub(r"^(a|an|the)\s+", "", name.strip().lower()).split()]
        key = " ".join(words)
        if words and key not in excluded and words[-1] not in excluded:
            kept.setdefault(key, name.strip())
    return list(kept.values())


DEFAULT_STYLE = "circle+classes+temporal"
DEFAULT_MAX_GAP_S = 10.0
"""Track points closer than this are bridged (present, box interpolated). Minerva-Ego's tracks come
from HD-EPIC, which segments an object at the first and last frame of each movement: the object
is in hand, in view, in between, and a take-to-put movement in a kitchen lasts seconds to tens of
seconds, while it rests (often out of view, in a cupboard or the fridge) for minutes between two
movements. 10 s bridges most movements (missing the middle of one hides the action the question
asks about), bridges only rests so short that the object is still where it was put, and stops
before a linearly interpolated box on head-mounted video drifts far. Dense tracks (propagated
masks, one point a frame) are unaffected; the sample benchmark's hand-written tracks (points up
to 9.96 s apart on continuously visible objects) stay continuous."""


class HintOptions(BaseModel):
    """Options of the hints method (`--method-arg style=box+text`, or `--hints` / `--detector`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    style: str = Field(DEFAULT_STYLE, validation_alias=AliasChoices("style", "hints"))
    detector: str | None = None  # samples without tracks: open-vocabulary detector, e.g. owlv2:<folder>
    max_gap_s: float = Field(DEFAULT_MAX_GAP_S, ge=0)  # track points further apart are not bridged

    @field_validator("style")
    @classmethod
    def _known_style(cls, value: str) -> str:
        from vqakit.video import parse_style

        parse_style(value)
        return value


class _Categories(BaseModel):
    objects: list[str]


async def object_categories(model: Any, sample: Sample) -> list[str]:
    """Ask the model which objects would help answer the question; filtered by the data file."""
    from vqakit.models import Message, complete_structured
    from vqakit.prompts import render_prompt

    prompt = render_prompt("hint_objects", question=sample.question, options="\n".join(sample.choices or []))
    value, _ = await complete_structured(model, [Message.user(prompt)], _Categories, sample_id=sample.id)
    return filter_categories(value.objects) if value is not None else []


def _spread(indices: list[int], count: int) -> list[int]:
    """`count` of the indices, evenly spaced (all of them when there are fewer)."""
    if len(indices) <= count:
        return list(indices)
    return [indices[k] for k in np.linspace(0, len(indices) - 1, count).round().astype(int)]


def sent_size(model: Any, width: int, height: int) -> tuple[int, int]:
    """The size a frame of `width` x `height` reaches the model at (`Model.sent_size`; a model
    without one, e.g. a scripted double, receives it whole)."""
    size = getattr(model, "sent_size", None)
    return size(width, height) if callable(size) else (width, height)


def _frames(sample: Sample, context: MethodContext, spec: Any) -> tuple[list[np.ndarray], list[float]]:
    """The frames as the model receives them: sampled at the protocol's size, then shrunk as the
    model's backend would, so that marks are drawn and text boxes given at the final size."""
    from PIL import Image as PILImage

    from vqakit.video import Resize, sample_frames

    resize = (
        Resize(short_side=context.protocol.short_side, upscale=context.protocol.upscale)
        if context.protocol.short_side
        else None
    )
    frames = sample_frames(context.root / sample.videos[0].path, spec, resize=resize)
    images = []
    for frame in frames:
        height, width = frame.image.shape[:2]
        size = sent_size(context.model, width, height)
        if size != (width, height):
            resized = PILImage.fromarray(frame.image).resize(size, PILImage.Resampling.BICUBIC)
            images.append(np.asarray(resized))
        else:
            images.append(frame.image)
    return images, [f.time_s for f in frames]


def frame_parts(
    images: list[np.ndarray], times: list[float], marks: list[list], style: set[str], source: tuple[int, int]
) -> list:
    """Message parts for hinted frames: the marks drawn (drawing styles), and with `text` /
    `text1000` a line before each frame giving its time and the boxes in that frame's pixels
    (or 0-1000), after a sentence saying how to read them; otherwise frames with time labels."""
    from vqakit.models import Frames, Image, Text, frame_clocks
    from vqakit.prompts import render_prompt
    from vqakit.video import describe_marks, draw_marks

    drawn = [draw_marks(image, m, style, source) for image, m in zip(images, marks, strict=True)]
    if not style & {"text", "text1000"}:
        return [Frames(tuple(drawn), tuple(times), label_times=True)] if drawn else []
    normalised = "text1000" in style
    size = (drawn[0].shape[1], drawn[0].shape[0]) if drawn else (0, 0)
    described = [describe_marks(m, source, size, normalised=normalised) for m in marks]
    parts: list = []
    if any(described):
        parts.append(
            Text(render_prompt("hint_boxes_intro", normalised=normalised, width=size[0], height=size[1]))
        )
    for image, label, objects in zip(drawn, frame_clocks(times), described, strict=True):
        parts += [Text(render_prompt("hint_boxes_frame", time=label, objects=objects)), Image(image)]
    return parts


def detected_parts(sample: Sample, context: MethodContext, categories: list[str]) -> tuple[list, list[float]]:
    """Hints without tracks: detect the categories and mark what is found. With `temporal`, twice
    the frame budget is sampled uniformly as candidates; frames with detections are kept (spread
    evenly down to the budget) and the rest of the budget is filled evenly from the others."""
    from vqakit.video import Mark, parse_style

    style = parse_style(context.options.style)
    detector = context.shared["detector"]
    spec = window_spec(sample, context.protocol.frames)
    budget = spec.n if isinstance(spec, Uniform) else None
    if "temporal" in style and budget:
        spec = Uniform(2 * budget, spec.start_s, spec.end_s)
    images, times = _frames(sample, context, spec)
    marks = [[Mark(d.label, d.box) for d in detector.detect(image, categories)] for image in images]
    if "temporal" in style and budget:
        found = [i for i, m in enumerate(marks) if m]
        keep = _spread(found, budget)
        keep = sorted(keep + _spread([i for i in range(len(images)) if i not in keep], budget - len(keep)))
        images, times, marks = ([values[i] for i in keep] for values in (images, times, marks))
    if not images:
        return [], []
    # detections are in pixels of the images themselves
    return frame_parts(images, times, marks, style, (images[0].shape[1], images[0].shape[0])), times


def hinted_parts(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
    """Hints from the sample's tracks: frames (chosen where the objects are, with `temporal`)
    with the marks of the objects present at each frame's time."""
    from vqakit.video import frame_index, marks_at, parse_style, select_times
    from vqakit.video import probe as probe_video

    style = parse_style(context.options.style)
    gap = context.options.max_gap_s
    path = context.root / sample.videos[0].path
    tracks = [t for t in sample.objects if t.video == 0]
    spec = window_spec(sample, context.protocol.frames)
    if "temporal" in style and tracks:
        budget = spec.n if isinstance(spec, Uniform) else 16
        duration = frame_index(path).duration_s
        spec = Timestamps(tuple(select_times(tracks, duration, budget, root=context.root, max_gap_s=gap)))
    images, times = _frames(sample, context, spec)
    if not images:
        return [], []
    marks = [marks_at(tracks, t, context.root, max_gap_s=gap) for t in times]
    # track boxes are in pixels of the displayed source frame
    return frame_parts(images, times, marks, style, probe_video(path).display_size), times


def _describe(options: HintOptions, protocol: Protocol) -> str:
    hints = f"hints {options.style} (gap {options.max_gap_s:g}s)"
    return f"frames {protocol.frames}, prompt {protocol.prompt}, {hints}"


@method("hints", needs_model=True, options=HintOptions, describe=_describe)
async def hints(sample: Sample, context: MethodContext) -> Prediction:
    """`direct` with marks drawn around the tracked objects and frames chosen where they are."""
    tracked = any(track.video == 0 for track in sample.objects)
    detector_spec = context.options.detector
    if tracked or not detector_spec or not sample.videos:
        return await ask_model(sample, context, "hints", hinted_parts)
    async with context.shared.setdefault("detector_lock", asyncio.Lock()):
        if "detector" not in context.shared:
            from vqakit.models import OpenVocabDetector

            context.shared["detector"] = await asyncio.to_thread(OpenVocabDetector, detector_spec)
    categories = await object_categories(context.model, sample)

    def visual(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
        return detected_parts(sample, context, categories)

    return await ask_model(sample, context, "hints", visual)


def write_hinted_frames(
    benchmark: Benchmark,
    sample_id: str,
    out: str | Path,
    *,
    video: str | None = None,
    style: str = DEFAULT_STYLE,
    frames: str = "uniform:16",
    short_side: int = 448,
) -> int:
    """Write a sample's hinted frames as the hints method sends them (PNG files and
    frames.json with times and any text lines), so a person can check them; returns how many.
    `video` replaces the sample's first video."""
    from PIL import Image as PILImage

    from vqakit.models import Frames, Image, Text

    sample = next((s for s in benchmark.samples if s.id == sample_id), None)
    if sample is None:
        raise ValueError(f"no sample {sample_id!r} in {benchmark.root}")
    if video is not None:
        sample = sample.model_copy(update={"videos": [sample.videos[0].model_copy(update={"path": video})]})
    protocol = benchmark.card.protocol.model_copy(update={"frames": frames, "short_side": short_side})
    context = MethodContext(
        root=benchmark.root, protocol=protocol, options=HintOptions(style=style), benchmark=benchmark
    )
    parts, times = hinted_parts(sample, context)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    images = [img for p in parts if isinstance(p, Frames) for img in p.images]
    images += [p.image for p in parts if isinstance(p, Image)]
    lines = [p.text for p in parts if isinstance(p, Text)]
    listing = []
    for i, (image, time_s) in enumerate(zip(images, times, strict=True)):
        name = f"hinted_{i:04d}.png"
        PILImage.fromarray(image).save(out / name)
        listing.append({"index": i, "time_s": round(time_s, 6), "file": name})
    (out / "frames.json").write_text(
        json.dumps({"style": style, "frames": listing, "text": lines}, indent=1) + "\n"
    )
    return len(listing)
