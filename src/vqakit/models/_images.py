"""Images on the wire: downscaled JPEG data URLs, and content hashes for cache keys."""

from __future__ import annotations

import base64
import hashlib
import io

import numpy as np
from PIL import Image as PILImage


def as_array(image: np.ndarray | PILImage.Image) -> np.ndarray:
    if isinstance(image, PILImage.Image):
        return np.asarray(image.convert("RGB"))
    return image


def pixel_hash(image: np.ndarray | PILImage.Image) -> str:
    """Hash of the decoded pixels (and shape), so two encodings of one picture share a key."""
    array = np.ascontiguousarray(as_array(image))
    digest = hashlib.sha256(str(array.shape).encode())
    digest.update(array.tobytes())
    return digest.hexdigest()


def shrunk_size(width: int, height: int, max_side: int | None) -> tuple[int, int]:
    """The size an image gets when its longer side is brought down to `max_side` (no change when
    it is already within it): how API backends send images."""
    if not max_side or max(width, height) <= max_side:
        return width, height
    scale = max_side / max(width, height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def data_url(image: np.ndarray | PILImage.Image, max_side: int | None = 768, quality: int = 90) -> str:
    """A `data:image/jpeg;base64,...` URL, shrunk so its longer side is at most `max_side`."""
    picture = image if isinstance(image, PILImage.Image) else PILImage.fromarray(image)
    if picture.mode != "RGB":
        picture = picture.convert("RGB")
    size = shrunk_size(picture.width, picture.height, max_side)
    if size != picture.size:
        picture = picture.resize(size, PILImage.Resampling.BICUBIC)
    buffer = io.BytesIO()
    picture.save(buffer, format="JPEG", quality=quality)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
