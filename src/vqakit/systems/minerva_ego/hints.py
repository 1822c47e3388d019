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

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from vqakit.files import check_out, is_listing_folder, writing_folder
from vqakit.methods import FrameRequest, MethodContext, Visual, ask_model, method, sent_encoding
from vqakit.schema import Benchmark, Prediction, Protocol, Sample
from vqakit.systems.minerva_ego.hint_frames import detected_frames, hint_parts, hinted_frames, hinted_parts
from vqakit.systems.minerva_ego.hint_frames import detected_parts as detected_parts  # for callers of hints
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
HINTS_WRITER = "hints"  # `vqakit hints`, as its folder's marker records it
HINTS_LEGACY = is_listing_folder("frames.json", ".png")  # its folders from before markers
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


def planned_frames(sample: Sample, context: MethodContext) -> list[FrameRequest]:
    """The frames `hints` will send for a sample, where they are known before it runs (tracks,
    or plain frames); the detector path decides after a model step."""
    if not sample.videos or (context.options.detector and not _tracked(sample)):
        return []
    hinted = hinted_frames(sample, context, sent_encoding(context))
    return [hinted.request] if hinted.request.numbers else []


def _tracked(sample: Sample) -> bool:
    return any(track.video == 0 for track in sample.objects)


def _describe(options: HintOptions, protocol: Protocol) -> str:
    hints = f"hints {options.style} (gap {options.max_gap_s:g}s)"
    return f"frames {protocol.frames}, prompt {protocol.prompt}, {hints}"


@method("hints", needs_model=True, options=HintOptions, describe=_describe, plan_frames=planned_frames)
async def hints(sample: Sample, context: MethodContext) -> Prediction:
    """`direct` with marks drawn around the tracked objects and frames chosen where they are."""
    detector_spec = context.options.detector
    if _tracked(sample) or not detector_spec or not sample.videos:

        async def tracked(sample: Sample, context: MethodContext) -> Visual:
            found = await asyncio.to_thread(hinted_frames, sample, context, sent_encoding(context))
            return await hint_parts(context, found)

        return await ask_model(sample, context, "hints", tracked)
    async with context.shared.setdefault("detector_lock", asyncio.Lock()):
        if "detector" not in context.shared:
            from vqakit.models import OpenVocabDetector

            context.shared["detector"] = await asyncio.to_thread(OpenVocabDetector, detector_spec)
    categories = await object_categories(context.model, sample)

    async def detected(sample: Sample, context: MethodContext) -> Visual:
        found = await detected_frames(sample, context, categories, sent_encoding(context))
        return await hint_parts(context, found)

    return await ask_model(sample, context, "hints", detected)


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
    `video` replaces the sample's first video. `out` must be new, empty or written by `vqakit
    hints` before, outside the benchmark (`OutFolderRefused`)."""
    inputs = [benchmark.root, video and benchmark.root / video]
    check_out(out, HINTS_WRITER, inputs=inputs, legacy=HINTS_LEGACY)  # before the work
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
    with writing_folder(out, HINTS_WRITER, inputs=inputs, legacy=HINTS_LEGACY) as folder:
        return _write_hinted(folder, parts, times, style)


def _write_hinted(out: Path, parts: list[Any], times: list[float], style: str) -> int:
    from PIL import Image as PILImage

    from vqakit.models import Frames, Image, Text

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
