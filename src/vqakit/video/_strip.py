"""A row of frames as one image: how a run folder keeps the frames a model was sent."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from vqakit.files import write_atomic

STRIP_HEIGHT = 112  # pixels; reports show strips at half height and enlarge them on click


def image_strip(images: list[Any], height: int = STRIP_HEIGHT) -> Image.Image:
    """The images (arrays or PIL images) side by side, each scaled to `height`."""
    scaled = []
    for image in images:
        picture = (image if isinstance(image, Image.Image) else Image.fromarray(np.asarray(image))).convert(
            "RGB"
        )
        width = max(1, round(picture.width * height / picture.height))
        scaled.append(picture.resize((width, height), Image.Resampling.BILINEAR))
    sheet = Image.new("RGB", (max(1, sum(p.width for p in scaled)), height), "white")
    x = 0
    for picture in scaled:
        sheet.paste(picture, (x, 0))
        x += picture.width
    return sheet


def write_strip(path: str | Path, images: list[Any], height: int = STRIP_HEIGHT) -> Path:
    """Write the images as one JPEG strip, atomically."""
    sheet = image_strip(images, height)

    def write(handle: Any) -> None:
        buffer = io.BytesIO()
        sheet.save(buffer, format="JPEG", quality=70)
        handle.write(buffer.getvalue())

    return write_atomic(path, write)
