"""Spatio-temporal hints (Minerva-Ego): marks drawn around the objects a question is about,
and frame times chosen where those objects are present.

Tracks are sparse (e.g. the first and last frame of each movement). An object is taken to be
present from its first to its last track point; in between, its box is interpolated linearly
between the two nearest points. Mask-only points are turned into their bounding box.

Styles (combine with `+`): `box`, `circle` (an ellipse around the box), `contour` (the outline
of the object's mask, taken from the nearest annotated point that has one: masks are not
propagated between points), `classes` (the label written above the box), `text` (no
drawing: one line per object, `label: [x0, y0, x1, y1]`,
to be placed before the frame). Marks are red, 3 px wide at 448 px short side and scaled
with the frame.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vqakit.schema import ObjectTrack

STYLES = ("box", "circle", "contour", "classes", "text")
RED = (255, 0, 0)


@dataclass(frozen=True)
class Mark:
    label: str
    box: tuple[float, float, float, float]  # in pixels of the source (displayed) frame
    mask: np.ndarray | None = None  # bool, source frame size, for the contour style


def parse_style(text: str) -> set[str]:
    parts = {part.strip() for part in text.replace("circles", "circle").replace("boxes", "box").split("+")}
    unknown = parts - set(STYLES) - {"temporal"}
    if unknown or not parts:
        raise ValueError(
            f"unknown hint style {sorted(unknown)}; combine {', '.join(STYLES)} and temporal with +"
        )
    return parts


@lru_cache(maxsize=256)
def load_mask(path: str) -> np.ndarray:
    """A mask PNG as a read-only bool array, read once: box and contour lookups ask for the
    same masks at every candidate frame time."""
    mask = np.asarray(Image.open(path).convert("L")) > 0
    mask.flags.writeable = False
    return mask


def _point_box(point, root: Path | None) -> tuple[float, float, float, float] | None:
    if point.box is not None:
        return tuple(float(v) for v in point.box)  # type: ignore[return-value]
    if point.mask is not None and root is not None:
        mask = load_mask(str(root / point.mask))
        ys, xs = np.nonzero(mask)
        if xs.size:
            return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)
    return None


def box_at(
    track: ObjectTrack, time_s: float, root: Path | None = None
) -> tuple[float, float, float, float] | None:
    """The object's box at `time_s`, interpolated; None outside its first..last point."""
    points = [(p.time_s, box) for p in track.points if (box := _point_box(p, root)) is not None]
    if not points or not points[0][0] <= time_s <= points[-1][0]:
        return None
    for (t0, b0), (t1, b1) in itertools.pairwise(points):
        if t0 <= time_s <= t1:
            w = 0.0 if t1 == t0 else (time_s - t0) / (t1 - t0)
            return tuple(a + w * (b - a) for a, b in zip(b0, b1, strict=True))  # type: ignore[return-value]
    return points[-1][1]


def mask_at(track: ObjectTrack, time_s: float, root: Path | None) -> np.ndarray | None:
    """The mask of the track point nearest in time that has one (None without masks)."""
    with_masks = [p for p in track.points if p.mask is not None]
    if not with_masks or root is None:
        return None
    nearest = min(with_masks, key=lambda p: abs(p.time_s - time_s))
    return load_mask(str(root / nearest.mask))


def marks_at(tracks: list[ObjectTrack], time_s: float, root: Path | None = None) -> list[Mark]:
    return [
        Mark(t.label, box, mask_at(t, time_s, root))
        for t in tracks
        if (box := box_at(t, time_s, root)) is not None
    ]


def _outline(mask: np.ndarray, size: tuple[int, int], width: int) -> np.ndarray:
    """Pixels on the border of a mask resized to `size` (width, height), `width` pixels thick."""
    scaled = (
        np.asarray(Image.fromarray(mask.astype(np.uint8) * 255).resize(size, Image.Resampling.NEAREST)) > 0
    )
    inner = scaled.copy()
    for _ in range(width):
        shrunk = inner.copy()
        shrunk[1:, :] &= inner[:-1, :]
        shrunk[:-1, :] &= inner[1:, :]
        shrunk[:, 1:] &= inner[:, :-1]
        shrunk[:, :-1] &= inner[:, 1:]
        inner = shrunk
    return scaled & ~inner


def draw_marks(
    image: np.ndarray, marks: list[Mark], style: set[str], source_size: tuple[int, int]
) -> np.ndarray:
    """Draw marks on an RGB frame. `source_size` (width, height) is the frame size the boxes
    refer to; boxes are scaled to the image."""
    if not marks or not style & {"box", "circle", "contour", "classes"}:
        return image
    if "contour" in style:
        image = image.copy()
        height, width_px = image.shape[:2]
        line = max(1, round(3 * min(width_px, height) / 448))
        for mark in marks:
            if mark.mask is not None:
                image[_outline(mark.mask, (width_px, height), line)] = RED
    picture = Image.fromarray(image)
    draw = ImageDraw.Draw(picture)
    sx, sy = picture.width / source_size[0], picture.height / source_size[1]
    width = max(1, round(3 * min(picture.size) / 448))
    font = ImageFont.load_default(size=max(10, round(14 * min(picture.size) / 448)))
    for mark in marks:
        x0, y0, x1, y1 = mark.box[0] * sx, mark.box[1] * sy, mark.box[2] * sx, mark.box[3] * sy
        if "box" in style:
            draw.rectangle((x0, y0, x1, y1), outline=RED, width=width)
        if "circle" in style:
            pad_x, pad_y = 0.2 * (x1 - x0) + width, 0.2 * (y1 - y0) + width
            draw.ellipse((x0 - pad_x, y0 - pad_y, x1 + pad_x, y1 + pad_y), outline=RED, width=width)
        if "classes" in style:
            top = y0 - (0.2 * (y1 - y0) + width if "circle" in style else 0)
            draw.text((x0, top - 2), mark.label, fill=RED, font=font, anchor="lb")
    return np.asarray(picture)


def describe_marks(marks: list[Mark]) -> str:
    return "; ".join(f"{m.label}: [{', '.join(str(round(v)) for v in m.box)}]" for m in marks)


def select_times(
    tracks: list[ObjectTrack],
    duration_s: float,
    budget: int,
    *,
    step_s: float = 0.5,
    root: Path | None = None,
) -> list[float]:
    """Temporal selection: times every `step_s` where a tracked object is present, spread evenly
    down to `budget` when there are more; the rest of the budget filled uniformly (centres of
    equal slices of the whole video), skipping times already taken. Sorted."""
    present = []
    for k in range(int(np.ceil(duration_s / step_s))):
        t = round(k * step_s, 6)
        if t < duration_s and any(box_at(track, t, root) is not None for track in tracks):
            present.append(t)
    if len(present) > budget:
        picks = np.linspace(0, len(present) - 1, budget).round().astype(int)
        return sorted({present[i] for i in picks})
    chosen = set(present)
    slices = budget - len(chosen)
    fill = [(i + 0.5) * duration_s / slices for i in range(slices)] if slices > 0 else []
    for t in fill:
        t = round(t, 6)
        if t not in chosen:
            chosen.add(t)
    return sorted(chosen)
