"""Images on the wire: downscaled JPEG data URLs, and content hashes for cache keys.

Every JPEG vqakit sends is made by `encode_jpeg`, at `JPEG_QUALITY` with 4:2:0 chroma
subsampling. The encoder was picked by measurement (benchmarks/e2e_throughput.py prints both):
simplejpeg (libjpeg-turbo through a thin binding, the `jpeg` extra) when installed, else Pillow
(whose wheels bundle libjpeg-turbo too, with more overhead per call). Their bytes differ, so
the encoder's name is part of a frame's identity (`image_encoding`).
"""

from __future__ import annotations

import binascii
import hashlib
import io
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from PIL import Image as PILImage

JPEG_QUALITY = 90
SUBSAMPLING = "4:2:0"


@dataclass(frozen=True)
class EncodedImage:
    """A JPEG exactly as it is sent, with its size (no pixels are decoded to use it)."""

    data: bytes
    width: int
    height: int

    @cached_property
    def base64(self) -> bytes:
        """The JPEG in base64 (ASCII bytes), made once per image: a frame shared by many
        requests is encoded for the wire once (`models._openai.openai_body`)."""
        return binascii.b2a_base64(self.data, newline=False)


@lru_cache(maxsize=1)
def jpeg_encoder() -> str:
    """`simplejpeg X.Y` when that binding is installed, else `pillow X.Y`."""
    from importlib import metadata, util

    # found, not imported: a run whose frames are all kept encodes nothing (were the binding
    # found but broken, encoding would fail with its ImportError, never pass Pillow's bytes off)
    if util.find_spec("simplejpeg") is not None:
        return f"simplejpeg {metadata.version('simplejpeg')}"
    return f"pillow {metadata.version('pillow')}"


def encode_jpeg(image: np.ndarray, quality: int = JPEG_QUALITY, encoder: str | None = None) -> bytes:
    """An RGB array (H, W, 3) as JPEG bytes, by `encoder` (default: `jpeg_encoder()`)."""
    import numpy as np

    encoder = encoder or jpeg_encoder()
    array = np.ascontiguousarray(image)
    if encoder.startswith("simplejpeg"):
        import simplejpeg

        return simplejpeg.encode_jpeg(array, quality=quality, colorspace="RGB", colorsubsampling="420")
    from PIL import Image as PILImage  # imported where used: a run answered from the cache encodes nothing

    buffer = io.BytesIO()
    PILImage.fromarray(array).save(buffer, format="JPEG", quality=quality, subsampling=SUBSAMPLING)
    return buffer.getvalue()


def image_encoding(max_side: int | None, quality: int = JPEG_QUALITY) -> dict[str, object]:
    """How images are encoded for a backend that sends JPEGs: what a frame's identity names, and
    what the run manifest states."""
    return {
        "format": "jpeg",
        "encoder": jpeg_encoder(),
        "quality": quality,
        "subsampling": SUBSAMPLING,
        "max_side": max_side,
    }


def sent_jpeg(
    image: np.ndarray | PILImage.Image | EncodedImage, max_side: int | None, quality: int = JPEG_QUALITY
) -> EncodedImage:
    """The image as it is sent: shrunk so its longer side is at most `max_side`, as JPEG. An
    `EncodedImage` already within `max_side` is sent as it is."""
    import numpy as np
    from PIL import Image as PILImage

    if isinstance(image, EncodedImage):
        if shrunk_size(image.width, image.height, max_side) == (image.width, image.height):
            return image
        with PILImage.open(io.BytesIO(image.data)) as opened:
            image = opened.convert("RGB")
    picture = image if isinstance(image, PILImage.Image) else PILImage.fromarray(np.asarray(image))
    if picture.mode != "RGB":
        picture = picture.convert("RGB")
    size = shrunk_size(picture.width, picture.height, max_side)
    if size != picture.size:
        picture = picture.resize(size, PILImage.Resampling.BICUBIC)
    return EncodedImage(encode_jpeg(np.asarray(picture), quality), picture.width, picture.height)


def as_array(image: np.ndarray | PILImage.Image | EncodedImage) -> np.ndarray:
    import numpy as np
    from PIL import Image as PILImage

    if isinstance(image, EncodedImage):
        with PILImage.open(io.BytesIO(image.data)) as opened:
            return np.asarray(opened.convert("RGB"))
    if isinstance(image, PILImage.Image):
        return np.asarray(image.convert("RGB"))
    return image


def pixel_hash(image: np.ndarray | PILImage.Image | EncodedImage) -> str:
    """Hash of the decoded pixels (and shape), so two encodings of one picture share a key; an
    `EncodedImage` is hashed by its bytes (it is sent as it is)."""
    import numpy as np

    if isinstance(image, EncodedImage):
        return "jpeg:" + hashlib.sha256(image.data).hexdigest()
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


def wire_ready(image: object, max_side: int | None) -> bool:
    """Whether an image goes on the wire as it is (a JPEG within `max_side`): nothing to encode."""
    return isinstance(image, EncodedImage) and shrunk_size(image.width, image.height, max_side) == (
        image.width,
        image.height,
    )


def data_url(
    image: np.ndarray | PILImage.Image | EncodedImage, max_side: int | None = 768, quality: int = JPEG_QUALITY
) -> str:
    """A `data:image/jpeg;base64,...` URL of `sent_jpeg(image, max_side, quality)`."""
    return "data:image/jpeg;base64," + sent_jpeg(image, max_side, quality).base64.decode("ascii")
