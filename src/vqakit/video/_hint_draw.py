"""Hint styles and marks: drawing them on a frame, and their boxes as numbers for text lines.

Styles (combine with `+`; `boxes`, `circles`, `contours` are accepted for the singular):
- `box`: a rectangle just outside the object's box. `circle`: an ellipse around the box, 20%
  larger each way.
- `contour`: the outline of the object's mask, fitted into its (interpolated) box; a mark
  without a mask (detector marks, track points given as boxes) gets its box outline instead,
  so the style never silently draws nothing.
- `classes`: the label written above the mark (below it when there is no room above).
- `text`: no drawing; the hints method writes a line before each frame giving each object's
  box `[xmin, ymin, xmax, ymax]` in pixels of the frame the model receives. `text1000`: the
  same with `[ymin, xmin, ymax, xmax]` normalised to 0-1000 of the frame's height and width
  (the form Gemini and Qwen predict boxes in). Combine with drawing styles (`box+text`) to get
  both the drawn marks and the lines.
- `temporal`: frame selection (see `select_times`), nothing drawn.

Marks are red, 3 px wide at 448 px short side and scaled with the frame.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vqakit.video._image_files import read_image

STYLES = ("box", "circle", "contour", "classes", "text", "text1000")
DRAWN = frozenset({"box", "circle", "contour", "classes"})
TEXT = frozenset({"text", "text1000"})
_ALIASES = {"boxes": "box", "circles": "circle", "contours": "contour"}
RED = (255, 0, 0)
CIRCLE_PAD = 0.2  # the ellipse reaches this fraction of the box beyond each side (plus a line width)


@dataclass(frozen=True)
class Mark:
    label: str
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 in pixels of the frame the marks refer to
    mask: np.ndarray | None = None  # bool, the object's mask at an annotated moment (any frame size)


def parse_style(text: str) -> set[str]:
    parts = {_ALIASES.get(part.strip(), part.strip()) for part in text.split("+")}
    unknown = parts - set(STYLES) - {"temporal"}
    if unknown or not parts:
        raise ValueError(
            f"unknown hint style {sorted(unknown)}; combine {', '.join(STYLES)} and temporal with +"
        )
    if parts >= TEXT:
        raise ValueError("hint style: choose one of text (pixels) and text1000 (normalised to 0-1000)")
    return parts


@lru_cache(maxsize=256)
def load_mask(path: str) -> np.ndarray:
    """A mask PNG as a read-only bool array, read once: box and contour lookups ask for the
    same masks at every candidate frame time."""
    mask = read_image(path, "L") > 0  # size-checked from the header before decoding
    mask.flags.writeable = False
    return mask


def mask_box(mask: np.ndarray) -> tuple[float, float, float, float] | None:
    """The bounding box of a mask's pixels (x1, y1 exclusive), None when it is empty."""
    ys, xs = np.nonzero(mask)
    if not xs.size:
        return None
    return float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1)


def line_width(width: int, height: int) -> int:
    return max(1, round(3 * min(width, height) / 448))


def _scaled(box: tuple[float, ...], sx: float, sy: float) -> tuple[float, float, float, float]:
    return box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy


def _fitted_outline(
    mask: np.ndarray, box: tuple[float, float, float, float], width: int
) -> tuple[int, int, np.ndarray] | None:
    """The mask's border, `width` pixels thick, with the mask's own box stretched onto `box`
    (pixels of the image drawn on): (left, top, outline) with outline the size of the box."""
    own = mask_box(mask)
    x0, y0 = round(box[0]), round(box[1])
    w, h = round(box[2]) - x0, round(box[3]) - y0
    if own is None or w < 1 or h < 1:
        return None
    crop = mask[int(own[1]) : int(own[3]), int(own[0]) : int(own[2])]
    fitted = np.asarray(Image.fromarray(crop.astype(np.uint8) * 255).resize((w, h), Image.Resampling.NEAREST))
    inner = np.pad(fitted > 0, 1)  # outside the box counts as outside the object
    for _ in range(width):
        shrunk = inner.copy()
        shrunk[1:, :] &= inner[:-1, :]
        shrunk[:-1, :] &= inner[1:, :]
        shrunk[:, 1:] &= inner[:, :-1]
        shrunk[:, :-1] &= inner[:, 1:]
        inner = shrunk
    return x0, y0, (fitted > 0) & ~inner[1:-1, 1:-1]


def _paint(image: np.ndarray, left: int, top: int, outline: np.ndarray) -> None:
    """Set the outline's pixels red in `image` (in place), clipped to the image."""
    height, width = image.shape[:2]
    x0, y0 = max(left, 0), max(top, 0)
    x1, y1 = min(left + outline.shape[1], width), min(top + outline.shape[0], height)
    if x0 < x1 and y0 < y1:
        region = image[y0:y1, x0:x1]
        region[outline[y0 - top : y1 - top, x0 - left : x1 - left]] = RED


def draw_marks(
    image: np.ndarray, marks: list[Mark], style: set[str], source_size: tuple[int, int]
) -> np.ndarray:
    """Draw marks on an RGB frame. `source_size` (width, height) is the frame size the boxes
    refer to; boxes are scaled to the image. Text styles draw nothing (the image comes back
    unchanged, the same object, when nothing is drawn)."""
    if not marks or not style & DRAWN:
        return image
    height, width_px = image.shape[:2]
    sx, sy = width_px / source_size[0], height / source_size[1]
    width = line_width(width_px, height)
    boxes = [_scaled(mark.box, sx, sy) for mark in marks]
    outlined: set[int] = set()
    if "contour" in style:
        image = image.copy()
        for i, (mark, box) in enumerate(zip(marks, boxes, strict=True)):
            fitted = _fitted_outline(mark.mask, box, width) if mark.mask is not None else None
            if fitted is not None:
                _paint(image, *fitted)
                outlined.add(i)
    picture = Image.fromarray(image)
    draw = ImageDraw.Draw(picture)
    font = ImageFont.load_default(size=max(10, round(18 * min(picture.size) / 448)))
    for i, (mark, (x0, y0, x1, y1)) in enumerate(zip(marks, boxes, strict=True)):
        if "box" in style or ("contour" in style and i not in outlined):
            # just outside the box (x1, y1 exclusive), so the object's own pixels stay visible
            outer = (x0 - width, y0 - width, x1 + width - 1, y1 + width - 1)
            draw.rectangle(tuple(round(v) for v in outer), outline=RED, width=width)
        pad_x, pad_y = (CIRCLE_PAD * (x1 - x0) + width, CIRCLE_PAD * (y1 - y0) + width)
        if "circle" in style:
            draw.ellipse((x0 - pad_x, y0 - pad_y, x1 + pad_x, y1 + pad_y), outline=RED, width=width)
        if "classes" in style:
            pad = pad_y if "circle" in style else 0.0
            left, top, right, _bottom = draw.textbbox((0, 0), mark.label, font=font, anchor="lb")
            x = min(max(x0, 0), max(0, picture.width - (right - left)))
            if y0 - pad - 2 + top >= 0:  # room above the mark
                draw.text((x, y0 - pad - 2), mark.label, fill=RED, font=font, anchor="lb")
            else:
                draw.text((x, y1 + pad + 2), mark.label, fill=RED, font=font, anchor="lt")
    return np.asarray(picture)


def describe_marks(
    marks: list[Mark],
    source_size: tuple[int, int],
    image_size: tuple[int, int],
    *,
    normalised: bool = False,
) -> list[dict]:
    """The marks as a text line gives them: `{"label", "box"}` per mark with the box in the
    image the model receives (`image_size`, width x height; boxes refer to `source_size`),
    clipped to it and rounded: `[xmin, ymin, xmax, ymax]` in pixels, or with `normalised`
    `[ymin, xmin, ymax, xmax]` in thousandths of the height and width. Marks wholly outside
    the image are left out."""
    width, height = image_size
    sx, sy = width / source_size[0], height / source_size[1]
    described = []
    for mark in marks:
        x0, y0, x1, y1 = _scaled(mark.box, sx, sy)
        x0, x1 = min(max(x0, 0.0), width), min(max(x1, 0.0), width)
        y0, y1 = min(max(y0, 0.0), height), min(max(y1, 0.0), height)
        if x1 <= x0 or y1 <= y0:
            continue
        if normalised:
            box = [round(1000 * y0 / height), round(1000 * x0 / width)]
            box += [round(1000 * y1 / height), round(1000 * x1 / width)]
        else:
            box = [round(x0), round(y0), round(x1), round(y1)]
        described.append({"label": mark.label, "box": box})
    return described
