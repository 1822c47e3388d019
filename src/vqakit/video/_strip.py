"""A row of frames as one image: how a run folder keeps the frames a model was sent."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from vqakit.files import write_atomic

STRIP_HEIGHT = 112  # pixels; reports show strips at half height and enlarge them on click


def _picture(image: Any, height: int) -> Image.Image:
    if isinstance(image, bytes | bytearray):  # a JPEG: decoded at the smallest scale it allows
        picture = Image.open(io.BytesIO(image))
        picture.draft("RGB", (1, height))
        return picture.convert("RGB")
    return (image if isinstance(image, Image.Image) else Image.fromarray(np.asarray(image))).convert("RGB")


def image_strip(images: list[Any], height: int = STRIP_HEIGHT) -> Image.Image:
    """The images (arrays, PIL images or JPEG bytes) side by side, each scaled to `height`."""
    scaled = []
    for image in images:
        picture = _picture(image, height)
        width = max(1, round(picture.width * height / picture.height))
        scaled.append(picture.resize((width, height), Image.Resampling.BILINEAR))
    sheet = Image.new("RGB", (max(1, sum(p.width for p in scaled)), height), "white")
    x = 0
    for picture in scaled:
        sheet.paste(picture, (x, 0))
        x += picture.width
    return sheet


def strip_jpeg(images: list[Any], height: int = STRIP_HEIGHT) -> bytes:
    """The images as one strip, JPEG bytes (what `write_strip` writes)."""
    buffer = io.BytesIO()
    image_strip(images, height).save(buffer, format="JPEG", quality=70)
    return buffer.getvalue()


def write_strip(path: str | Path, images: list[Any], height: int = STRIP_HEIGHT) -> Path:
    """Write the images as one JPEG strip, atomically."""
    data = strip_jpeg(images, height)
    return write_atomic(path, lambda handle: handle.write(data))
