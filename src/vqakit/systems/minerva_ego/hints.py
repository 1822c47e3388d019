"""`hints`: `direct` with spatio-temporal hints from the sample's object tracks.

With `temporal` in the style, frame times come from `select_times` (where the tracked objects
are, then uniform); otherwise from the protocol's frame spec. Each frame gets the marks of the
objects present at its time, drawn (`box`, `circle`, `classes`) or, with `text`, written as a
line before the frame. Samples without tracks use the detector path when the run names a
detector (option `detector`, e.g. `owlv2:<folder>`): the answering model lists the objects
that would help, hands, people and large static things are dropped (hint_exclusions.txt), the
detector finds the rest at score 0.6 on the sampled frames, and the same marks are drawn;
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


class HintOptions(BaseModel):
    """Options of the hints method (`--method-arg style=box+text`, or `--hints` / `--detector`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    style: str = Field(DEFAULT_STYLE, validation_alias=AliasChoices("style", "hints"))
    detector: str | None = None  # samples without tracks: open-vocabulary detector, e.g. owlv2:<folder>

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


def detected_parts(sample: Sample, context: MethodContext, categories: list[str]) -> tuple[list, list[float]]:
    """Hints without tracks: detect the categories and mark what is found. With `temporal`, twice
    the frame budget is sampled uniformly as candidates; frames with detections are kept (spread
    evenly down to the budget) and the rest of the budget is filled evenly from the others."""
    from vqakit.models import Frames
    from vqakit.video import Mark, Resize, draw_marks, parse_style, sample_frames

    style = parse_style(context.options.style)
    detector = context.shared["detector"]
    path = context.root / sample.videos[0].path
    spec = window_spec(sample, context.protocol.frames)
    budget = spec.n if isinstance(spec, Uniform) else None
    if "temporal" in style and budget:
        spec = Uniform(2 * budget, spec.start_s, spec.end_s)
    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    frames = sample_frames(path, spec, resize=resize)
    marks = [[Mark(d.label, d.box) for d in detector.detect(f.image, categories)] for f in frames]
    if "temporal" in style and budget:
        found = [i for i, m in enumerate(marks) if m]
        chosen = _spread(found, budget)
        chosen += _spread([i for i in range(len(frames)) if i not in chosen], budget - len(chosen))
        frames, marks = [frames[i] for i in sorted(chosen)], [marks[i] for i in sorted(chosen)]
    images = tuple(
        draw_marks(f.image, m, style, (f.image.shape[1], f.image.shape[0]))
        for f, m in zip(frames, marks, strict=True)
    )
    times = [f.time_s for f in frames]
    return ([Frames(images, tuple(times))] if frames else []), times


def hinted_parts(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
    from vqakit.models import Frames, Image, Text, clock
    from vqakit.video import (
        Resize,
        describe_marks,
        draw_marks,
        frame_index,
        marks_at,
        parse_style,
        sample_frames,
    )
    from vqakit.video import probe as probe_video

    style = parse_style(context.options.style)
    path = context.root / sample.videos[0].path
    tracks = [t for t in sample.objects if t.video == 0]
    spec = window_spec(sample, context.protocol.frames)
    if "temporal" in style and tracks:
        from vqakit.video import select_times

        budget = spec.n if isinstance(spec, Uniform) else 16
        spec = Timestamps(
            tuple(select_times(tracks, frame_index(path).duration_s, budget, root=context.root))
        )
    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    frames = sample_frames(path, spec, resize=resize)
    times = [f.time_s for f in frames]
    if not frames:
        return [], []
    source = probe_video(path).display_size
    if "text" in style:
        parts: list = []
        for frame in frames:
            marks = marks_at(tracks, frame.time_s, context.root)
            line = f"{clock(frame.time_s)} {describe_marks(marks)}" if marks else clock(frame.time_s)
            parts += [Text(line), Image(frame.image)]
        return parts, times
    images = tuple(
        draw_marks(f.image, marks_at(tracks, f.time_s, context.root), style, source) for f in frames
    )
    return [Frames(images, tuple(times), label_times=True)], times


def _describe(options: HintOptions, protocol: Protocol) -> str:
    return f"frames {protocol.frames}, prompt {protocol.prompt}, hints {options.style}"


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
