"""The frames the `hints` method sends, through the run's frame provider: each frame shrunk to
the size the model receives and its marks drawn by an `Overlay` (`draw_hints`), so that hinted
frames are decoded once per run, kept in the frame store under keys naming what is drawn on
them, and keyed in the response cache by identity (a cached re-run decodes nothing on the
tracks path; the detector path decodes its candidates for the detector). `hinted_parts` and
`detected_parts` give the same frames held as pixels, for looking at them."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.methods import (
    FrameRequest,
    MethodContext,
    Overlay,
    Visual,
    frames_part,
    frames_strip,
    protocol_resize,
    window_spec,
)
from vqakit.schema import Sample, Timestamps, Uniform

TEXT = frozenset({"text", "text1000"})  # styles that write boxes as text lines
DRAWN = frozenset({"box", "circle", "contour", "classes"})  # styles that draw on the frames


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


def draw_hints(image: np.ndarray, what: tuple) -> np.ndarray:
    """A decoded frame as the hints method sends it (the frame provider's overlay): shrunk to the
    size the model receives (`size`), then the marks drawn (`video.draw_marks`)."""
    from PIL import Image as PILImage

    from vqakit.video import draw_marks

    size, marks, style, source = what
    if (image.shape[1], image.shape[0]) != tuple(size):
        image = np.asarray(PILImage.fromarray(image).resize(tuple(size), PILImage.Resampling.BICUBIC))
    return draw_marks(image, list(marks), set(style), source) if marks else image


def _marks_key(what: tuple) -> str:
    """A digest of everything `draw_hints` uses (masks by their bits)."""
    size, marks, style, source = what
    named = [
        [m.label, [float(v) for v in m.box], None if m.mask is None else _mask_digest(m.mask)] for m in marks
    ]
    text = json.dumps([list(size), named, list(style), list(source) if source else None])
    return hashlib.sha256(text.encode()).hexdigest()


def _mask_digest(mask: np.ndarray) -> str:
    digest = hashlib.sha256(str(mask.shape).encode())
    digest.update(np.packbits(np.asarray(mask, dtype=bool)).tobytes())
    return digest.hexdigest()


@dataclass
class Hinted:
    """The frames the hints method sends for a sample (named, with what is drawn on them) and
    the marks each frame carries."""

    request: FrameRequest
    marks: list[list]  # per frame of the request, in its order
    style: set[str]
    source: tuple[int, int]  # the frame size the marks' boxes refer to
    size: tuple[int, int]  # the frames' size as the model receives them


def _hinted(
    request: FrameRequest, marks: list[list], style: set[str], source: tuple[int, int], size: tuple[int, int]
) -> Hinted:
    """Every frame shrunk to `size` and its marks drawn (drawing styles), by the provider."""
    drawing = bool(style & DRAWN)
    what: dict[int, tuple] = {}
    for number, found in zip(request.numbers, marks, strict=True):
        drawn = tuple(found) if drawing and found else ()
        what[number] = (size, drawn, tuple(sorted(style & DRAWN)) if drawn else (), source if drawn else None)
    overlay = Overlay(draw_hints, what, {number: _marks_key(one) for number, one in what.items()})
    return Hinted(request.drawn(overlay), marks, style, source, size)


def _display_size(context: MethodContext, path: Path) -> tuple[int, int]:
    """The video's display size (read once per run and video)."""
    from vqakit.video import probe

    sizes = context.shared.setdefault("hint_display_sizes", {})
    if str(path) not in sizes:
        sizes[str(path)] = probe(path).display_size
    return sizes[str(path)]


def _decoded_size(source: tuple[int, int], resize: Any) -> tuple[int, int]:
    return resize.output_size(*source) if resize is not None else source


def hinted_frames(sample: Sample, context: MethodContext, encoding: dict | None) -> Hinted:
    """Hints from the sample's tracks: frames (chosen where the objects are, with `temporal`)
    with the marks of the objects present at each frame's time (boxes in pixels of the displayed
    source frame). Reads the video's frame index; decodes nothing."""
    from vqakit.video import frame_index, marks_at, parse_style, select_times

    style = parse_style(context.options.style)
    gap = context.options.max_gap_s
    path = context.root / sample.videos[0].path
    tracks = [t for t in sample.objects if t.video == 0]
    spec = window_spec(sample, context.protocol.frames)
    if "temporal" in style and tracks:
        budget = spec.n if isinstance(spec, Uniform) else 16
        duration = frame_index(path).duration_s
        spec = Timestamps(tuple(select_times(tracks, duration, budget, root=context.root, max_gap_s=gap)))
    request = context.frames.request(str(path), spec, protocol_resize(context.protocol), encoding)
    marks = [marks_at(tracks, t, context.root, max_gap_s=gap) for t in request.times_s]
    source = _display_size(context, path)
    size = sent_size(context.model, *_decoded_size(source, request.resize))
    return _hinted(request, marks, style, source, size)


async def detected_frames(
    sample: Sample, context: MethodContext, categories: list[str], encoding: dict | None
) -> Hinted:
    """Hints without tracks: detect the categories and mark what is found. With `temporal`, twice
    the frame budget is sampled uniformly as candidates; frames with detections are kept (spread
    evenly down to the budget) and the rest of the budget is filled evenly from the others. The
    detector sees the candidates at the size the model receives them (they are decoded for it,
    shared with the frames sent)."""
    from vqakit.video import Mark, parse_style

    style = parse_style(context.options.style)
    detector = context.shared["detector"]
    spec = window_spec(sample, context.protocol.frames)
    budget = spec.n if isinstance(spec, Uniform) else None
    if "temporal" in style and budget:
        spec = Uniform(2 * budget, spec.start_s, spec.end_s)
    path = str(context.root / sample.videos[0].path)
    resize = protocol_resize(context.protocol)
    pixels = await asyncio.to_thread(context.frames.request, path, spec, resize, None)
    sent = await asyncio.to_thread(context.frames.request, path, spec, resize, encoding)
    decoded = await context.frames.images(pixels)

    def detect() -> tuple[tuple[int, int], list[list]]:
        size = sent_size(context.model, decoded[0].shape[1], decoded[0].shape[0]) if decoded else (0, 0)
        images = [draw_hints(image, (size, (), (), None)) for image in decoded]
        return size, [[Mark(d.label, d.box) for d in detector.detect(image, categories)] for image in images]

    size, marks = await asyncio.to_thread(detect)
    keep = list(range(len(marks)))
    if "temporal" in style and budget:
        found = [i for i, m in enumerate(marks) if m]
        keep = _spread(found, budget)
        keep = sorted(keep + _spread([i for i in range(len(marks)) if i not in keep], budget - len(keep)))
    # detections are in pixels of the images themselves
    return _hinted(sent.subset(keep), [marks[i] for i in keep], style, size, size)


async def hint_parts(context: MethodContext, hinted: Hinted) -> Visual:
    """Message parts for hinted frames: the frames (marks drawn, with drawing styles) and, with
    `text` / `text1000`, a line before each frame giving its time and the boxes in that frame's
    pixels (or 0-1000), after a sentence saying how to read them; otherwise frames with time
    labels. Frames are named (fetched when sent) where the model is sent JPEGs, held as pixels
    where it takes them."""
    from vqakit.models import Image, Text, frame_clocks
    from vqakit.prompts import render_prompt
    from vqakit.video import describe_marks

    request, style = hinted.request, hinted.style
    times = list(request.times_s)
    if not request.numbers:
        return Visual([], [])
    strip = frames_strip(context, request)
    if not style & TEXT:
        return Visual([frames_part(context, request)], times, request.identity, strip)
    normalised = "text1000" in style
    width, height = hinted.size
    described = [describe_marks(m, hinted.source, hinted.size, normalised=normalised) for m in hinted.marks]
    held = await context.frames.images(request) if request.encoding is None else None
    parts: list = []
    if any(described):
        intro = render_prompt("hint_boxes_intro", normalised=normalised, width=width, height=height)
        parts.append(Text(intro))
    for i, (label, objects) in enumerate(zip(frame_clocks(times), described, strict=True)):
        if held is not None:
            frame = Image(held[i])
        else:  # one frame, no time label: the image alone, as an `Image` part sends it
            frame = frames_part(context, request.subset([i]), label_times=False)
        parts += [Text(render_prompt("hint_boxes_frame", time=label, objects=objects)), frame]
    return Visual(parts, times, request.identity, strip)


async def _loaded(context: MethodContext, hinted: Hinted) -> tuple[list, list[float]]:
    from vqakit.models import Message

    shown = await hint_parts(context, hinted)
    message = await Message.user(*shown.parts).loaded()
    return list(message.parts), shown.times


def hinted_parts(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
    """(parts, frame times) of a sample's hints from its tracks, every frame held as pixels at
    the size the model receives them: for looking at them (`write_hinted_frames`)."""

    async def run() -> tuple[list, list[float]]:
        return await _loaded(context, await asyncio.to_thread(hinted_frames, sample, context, None))

    return asyncio.run(run())


def detected_parts(sample: Sample, context: MethodContext, categories: list[str]) -> tuple[list, list[float]]:
    """`hinted_parts` for a sample without tracks, by the detector of `context.shared`."""

    async def run() -> tuple[list, list[float]]:
        return await _loaded(context, await detected_frames(sample, context, categories, None))

    return asyncio.run(run())
