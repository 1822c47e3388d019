"""Synthetic test clips whose frames carry their own index.

Each frame shows a panning texture (so the encoder produces real motion and real decode cost)
with a strip of black/white blocks in the top rows that spells the frame's index in binary.
`read_frame_index` reads the strip back from a decoded RGB frame, which is how tests and the
benchmark script prove that a sampler returned exactly the frame it says it did.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import av
import numpy as np

INDEX_BITS = 16
"""Bits in the index strip: enough for 65,535 frames (43 min at 25 fps)."""


def _block_size(width: int) -> int:
    return max(4, width // (INDEX_BITS + 4))


def _texture(height: int, width: int, seed: int) -> np.ndarray:
    """A smooth random RGB texture, twice as wide as the frame so it can pan."""
    rng = np.random.default_rng(seed)
    coarse = rng.integers(0, 256, size=(height // 16 + 2, (2 * width) // 16 + 2, 3), dtype=np.uint8)
    big = np.repeat(np.repeat(coarse, 16, axis=0), 16, axis=1)[:height, : 2 * width]
    noise = rng.integers(-4, 5, size=big.shape, dtype=np.int16)
    return np.clip(big.astype(np.int16) + noise, 0, 255).astype(np.uint8)


def draw_index(frame: np.ndarray, index: int) -> None:
    """Write `index` into the top strip of an RGB frame, in place."""
    block = _block_size(frame.shape[1])
    frame[: 2 * block, : (INDEX_BITS + 2) * block] = 128
    for bit in range(INDEX_BITS):
        value = 255 if (index >> (INDEX_BITS - 1 - bit)) & 1 else 0
        x0 = (bit + 1) * block
        frame[block // 2 : block // 2 + block, x0 : x0 + block] = value


def read_frame_index(frame: np.ndarray, encoded_width: int | None = None) -> int:
    """Read back the index written by `draw_index`.

    Pass `encoded_width` when the frame was resized after decoding; the strip is located by
    scaling its encoded geometry to the frame's width.
    """
    scale = frame.shape[1] / encoded_width if encoded_width else 1.0
    block = _block_size(encoded_width or frame.shape[1])
    luma = frame[..., :3].astype(np.float32).mean(axis=2)
    index = 0
    for bit in range(INDEX_BITS):
        x0 = (bit + 1) * block
        rows = slice(round((block // 2 + block / 4) * scale), round((block // 2 + 3 * block / 4) * scale))
        cols = slice(round((x0 + block / 4) * scale), round((x0 + 3 * block / 4) * scale))
        index = (index << 1) | int(luma[rows, cols].mean() > 128)
    return index


def write_index_clip(
    path: str | Path,
    *,
    seconds: float,
    fps: int | Fraction = 25,
    width: int = 320,
    height: int = 240,
    gop: int = 50,
    bframes: int = 3,
    crf: int = 23,
    preset: str = "veryfast",
    seed: int = 0,
    grain_level: int = 0,
) -> Path:
    """Encode an H.264 MP4 of `seconds` whose frame i shows index i in its top strip.

    The GOP is fixed (`gop` frames, no scene-cut keyframes) and B-frames always used, so that
    seek and decode costs are predictable. `grain_level` adds sensor-like noise that changes every
    frame, which raises the bitrate (and decode cost) towards that of camera footage.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    rate = Fraction(fps)
    n_frames = round(seconds * rate)
    texture = _texture(height, width, seed)
    rng = np.random.default_rng(seed + 1)
    grain = [
        rng.integers(-grain_level, grain_level + 1, (height, width, 1), dtype=np.int16) for _ in range(7)
    ]
    x264 = f"keyint={gop}:min-keyint={gop}:scenecut=0:bframes={bframes}:b-adapt=0"
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=rate)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": str(crf), "preset": preset, "x264-params": x264}
        for i in range(n_frames):
            offset = (2 * i) % width
            frame = texture[:, offset : offset + width]
            if grain_level:
                frame = np.clip(frame + grain[i % len(grain)], 0, 255).astype(np.uint8)
            frame = np.ascontiguousarray(frame)
            draw_index(frame, i)
            video_frame = av.VideoFrame.from_ndarray(frame, format="rgb24")
            for packet in stream.encode(video_frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return path
