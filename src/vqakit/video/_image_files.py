"""Image files a benchmark or a release brings (frame folders, masks): their size read from the
header and checked before any pixel is decoded, so that a tiny file claiming 30000x30000 pixels
is refused by name instead of filling memory (or ending in Pillow's DecompressionBombError).
Every failure is a `VideoError` naming the file."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
from PIL import Image

from vqakit.video._errors import VideoError

MAX_IMAGE_PIXELS = 8192 * 8192
"""Largest image read (about 67 million pixels: an 8K frame has 33 million)."""


def image_size(path: str | Path, max_pixels: int = MAX_IMAGE_PIXELS) -> tuple[int, int]:
    """(width, height) from the file's header, nothing decoded; VideoError naming the file when
    it is no image Pillow reads, or larger than `max_pixels`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own limit decides
            with Image.open(path) as image:
                width, height = image.size
    except Image.DecompressionBombError as error:  # Pillow's own limit, above ours
        claimed = re.search(r"\((\d+) pixels\)", str(error))
        pixels = f"{int(claimed[1]):,} pixels" if claimed else "more pixels than Pillow reads"
        raise VideoError(
            path, f"the image header claims {pixels}, more than {max_pixels:,} (refused unread)"
        ) from None
    except FileNotFoundError:
        raise VideoError(path, "image file not found") from None
    except (OSError, ValueError, SyntaxError) as error:  # Pillow's words for a file it cannot read
        raise VideoError(path, f"not a readable image ({error})") from None
    if width * height > max_pixels:
        claimed = f"{width}x{height} = {width * height:,} pixels"
        raise VideoError(
            path, f"the image header claims {claimed}, more than {max_pixels:,} (refused unread)"
        )
    return width, height


def read_image(path: str | Path, mode: str = "RGB", max_pixels: int = MAX_IMAGE_PIXELS) -> np.ndarray:
    """The image's pixels in `mode` (RGB, L...), its size checked first (`image_size`);
    VideoError naming the file when it cannot be decoded (truncated, damaged)."""
    image_size(path, max_pixels)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(path) as image:
                return np.asarray(image.convert(mode))
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as error:
        raise VideoError(path, f"cannot decode the image ({error})") from None


def check_image_file(path: str | Path, max_pixels: int = MAX_IMAGE_PIXELS) -> None:
    """Size-check the header, then let Pillow verify the file's structure; VideoError naming it."""
    image_size(path, max_pixels)
    try:
        with Image.open(path) as image:
            image.verify()
    except (OSError, ValueError, SyntaxError) as error:
        raise VideoError(path, f"not a readable image ({error})") from None
