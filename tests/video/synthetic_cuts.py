"""Synthetic videos with known cuts, for shot detection and merging tests and the benchmark.

Each shot shows distinct content: a panning texture, moving shapes on a plain ground, a gradient
whose colour drifts (a gradual change inside a shot, which must not cut) or a shaking texture
(camera shake). Shots join by a hard cut, by a dissolve (a cross-fade over several frames), or
as a "same-scene" cut: the next shot shows the same texture from another framing, a real cut
that merging should undo. Every frame carries its index in a strip of 4-px blocks at the bottom
left (`read_index`), so tests can check which frame a time maps to.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import av
import numpy as np

BITS = 12
BLOCK = 4


def draw_index(frame: np.ndarray, index: int) -> None:
    height = frame.shape[0]
    frame[height - 2 * BLOCK :, : (BITS + 2) * BLOCK] = 128
    for bit in range(BITS):
        value = 255 if (index >> (BITS - 1 - bit)) & 1 else 0
        x0 = (bit + 1) * BLOCK
        frame[height - 2 * BLOCK + BLOCK // 2 : height - BLOCK // 2, x0 : x0 + BLOCK] = value


def read_index(frame: np.ndarray) -> int:
    height = frame.shape[0]
    luma = frame[..., :3].astype(np.float32).mean(axis=2)
    value = 0
    for bit in range(BITS):
        x0 = (bit + 1) * BLOCK
        cell = luma[height - 2 * BLOCK + BLOCK // 2 + 1 : height - BLOCK // 2 - 1, x0 + 1 : x0 + BLOCK - 1]
        value = (value << 1) | int(cell.mean() > 128)
    return value


def texture(height: int, width: int, seed: int, cell: int = 12, base_seed: int | None = None) -> np.ndarray:
    """A blocky random RGB texture twice as wide as the frame (so it can pan) around a base
    colour drawn from `base_seed` (default `seed`)."""
    rng = np.random.default_rng(seed)
    base = np.random.default_rng(seed if base_seed is None else base_seed).integers(0, 256, size=3)
    coarse = rng.integers(-90, 91, size=(height // cell + 2, 2 * width // cell + 2, 3)) + base
    big = np.repeat(np.repeat(coarse, cell, axis=0), cell, axis=1)[:height, : 2 * width]
    return np.clip(big, 0, 255).astype(np.uint8)


Painter = Callable[[int, int], np.ndarray]  # (frame within shot, shot length) -> RGB frame


def pan(
    height: int, width: int, seed: int, speed: int = 2, start: int = 0, base_seed: int | None = None
) -> Painter:
    tex = texture(height, width, seed, base_seed=base_seed)
    return lambda i, n: tex[:, (start + speed * i) % width : (start + speed * i) % width + width].copy()


def fastpan(height: int, width: int, seed: int) -> Painter:
    """A whip pan: 14 px per frame, a big change between frames that is not a cut."""
    return pan(height, width, seed, speed=14)


def flash(height: int, width: int, seed: int) -> Painter:
    """A panning texture with a two-frame camera flash in the middle, which is not a cut."""
    plain = pan(height, width, seed)

    def paint(i: int, n: int) -> np.ndarray:
        frame = plain(i, n)
        if n // 2 <= i < n // 2 + 2:
            frame = (frame.astype(np.uint16) + 255) // 2
        return frame.astype(np.uint8)

    return paint


def shake(height: int, width: int, seed: int) -> Painter:
    """A texture seen through a shaking camera: a random shift of up to 6 px every frame."""
    tex = np.pad(texture(height, width, seed), ((6, 6), (0, 0), (0, 0)), mode="edge")
    jitter = np.random.default_rng(seed).integers(0, 7, size=(10_000, 2))
    return lambda i, n: tex[jitter[i, 0] : jitter[i, 0] + height, jitter[i, 1] : jitter[i, 1] + width].copy()


def shapes(height: int, width: int, seed: int) -> Painter:
    rng = np.random.default_rng(seed)
    ground = rng.integers(20, 236, size=3)
    items = [
        (rng.integers(0, 256, size=3), rng.integers(10, 30), rng.uniform(-3, 3, size=2)) for _ in range(3)
    ]
    yy, xx = np.mgrid[:height, :width]

    def paint(i: int, n: int) -> np.ndarray:
        frame = np.empty((height, width, 3), np.uint8)
        frame[:] = ground
        for k, (colour, radius, velocity) in enumerate(items):
            cy = (height * (k + 1) / 4 + velocity[0] * i) % height
            cx = (width * (k + 1) / 4 + velocity[1] * i) % width
            frame[(yy - cy) ** 2 + (xx - cx) ** 2 < radius**2] = colour
        return frame

    return paint


def drift(height: int, width: int, seed: int) -> Painter:
    """A vertical gradient whose colours drift slowly through the shot, with a moving bar."""
    rng = np.random.default_rng(seed)
    top, bottom, shift = (
        rng.integers(30, 226, size=3),
        rng.integers(30, 226, size=3),
        rng.integers(-60, 61, size=3),
    )
    ramp = np.linspace(0, 1, height)[:, None, None]

    def paint(i: int, n: int) -> np.ndarray:
        t = i / max(n - 1, 1)
        frame = (top + t * shift) * (1 - ramp) + bottom * ramp
        frame = np.broadcast_to(frame, (height, width, 3)).astype(np.uint8).copy()
        x = (3 * i) % (width - 20)
        frame[height // 3 : height // 3 + 20, x : x + 20] = 255 - frame[0, 0]
        return frame

    return paint


@dataclass
class CutTruth:
    """Where the shots of a synthetic clip change, in frame numbers."""

    frame_count: int
    cuts: list[int] = field(default_factory=list)  # first frame of each new shot (hard cuts)
    same_scene: list[int] = field(default_factory=list)  # the hard cuts between two framings of one scene
    dissolves: list[tuple[int, int]] = field(default_factory=list)  # first and last blended frame

    @property
    def scene_cuts(self) -> list[int]:
        return [c for c in self.cuts if c not in self.same_scene]


KINDS: dict[str, Callable[[int, int, int], Painter]] = {
    "pan": pan,
    "fastpan": fastpan,
    "flash": flash,
    "shake": shake,
    "shapes": shapes,
    "drift": drift,
}


def write_cut_clip(
    path: Path,
    plan: list[tuple[str, str, int]],
    *,
    fps: int = 25,
    size: tuple[int, int] = (320, 180),
    crf: int = 23,
    seed: int = 0,
) -> CutTruth:
    """Encode shots `(join, kind, frames)`. `join` is "cut", "dissolve", "same" (the previous
    shot's texture from another framing: one scene) or "similar" (a new texture around the
    previous one's colour: a new scene that looks alike); the last two need a "pan" before them.
    `kind` is a KINDS key."""
    width, height = size
    painters: list[Painter] = []
    for k, (join, kind, _) in enumerate(plan):
        if join == "same":
            painters.append(pan(height, width, seed + k - 1, speed=-2, start=width // 2))
        elif join == "similar":
            painters.append(pan(height, width, seed + k, base_seed=seed + k - 1))
        else:
            painters.append(KINDS[kind](height, width, seed + k))
    frames: list[np.ndarray] = []
    truth = CutTruth(frame_count=0)
    fade = 12
    for k, ((join, _, length), paint) in enumerate(zip(plan, painters, strict=True)):
        shot = [paint(i, length) for i in range(length)]
        if k and join == "dissolve":
            start = len(frames) - fade  # the last `fade` frames of one shot fade into the next's first
            for j in range(fade):
                alpha = (j + 1) / (fade + 1)
                frames[start + j] = (frames[start + j] * (1 - alpha) + shot[j] * alpha).astype(np.uint8)
            shot = shot[fade:]
            truth.dissolves.append((start, start + fade - 1))
        elif k:
            truth.cuts.append(len(frames))
            if join == "same":
                truth.same_scene.append(len(frames))
        frames.extend(shot)
    truth.frame_count = len(frames)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
        stream.options = {"crf": str(crf), "preset": "veryfast", "x264-params": "keyint=50:bframes=3"}
        for number, image in enumerate(frames):
            image = np.ascontiguousarray(image)
            draw_index(image, number)
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return truth


def default_plan(repeats: int = 1) -> list[tuple[str, str, int]]:
    """25 shots per repeat, 1.2-3 s each at 25 fps: 20 hard cuts (3 of them same-scene, 2 to a
    similar-looking scene) and 4 dissolves; drift, shake, whip-pan and flash shots test that
    gradual change, camera shake, fast motion and flashes do not cut."""
    one = [
        ("cut", "pan", 60),
        ("cut", "shapes", 45),
        ("cut", "drift", 75),
        ("cut", "pan", 50),
        ("same", "pan", 40),
        ("cut", "shake", 55),
        ("dissolve", "shapes", 60),
        ("cut", "pan", 35),
        ("cut", "drift", 50),
        ("dissolve", "pan", 65),
        ("same", "pan", 45),
        ("cut", "shapes", 30),
        ("cut", "shake", 40),
        ("dissolve", "drift", 70),
        ("cut", "pan", 45),
        ("cut", "shapes", 50),
        ("dissolve", "pan", 55),
        ("cut", "drift", 35),
        ("cut", "pan", 60),
        ("same", "pan", 50),
        ("cut", "fastpan", 50),
        ("cut", "flash", 60),
        ("similar", "pan", 45),
        ("cut", "pan", 40),
        ("similar", "pan", 55),
    ]
    return [step for _ in range(repeats) for step in one]


def score_cuts(
    detected: list[int], truth: CutTruth, *, scenes: bool = False, tolerance: int = 1
) -> tuple[float, float]:
    """Precision and recall of detected cut frames: a detection matches a hard cut within
    `tolerance` frames, or a dissolve anywhere from `tolerance` before its first blended frame
    to `tolerance` after its last. With `scenes`, same-scene cuts are not expected."""
    windows = [(c - tolerance, c + tolerance) for c in (truth.scene_cuts if scenes else truth.cuts)]
    windows += [(a - tolerance, b + tolerance) for a, b in truth.dissolves]
    free = sorted(detected)
    hits = 0
    for low, high in sorted(windows):
        inside = [d for d in free if low <= d <= high]
        if inside:
            free.remove(inside[0])
            hits += 1
    precision = hits / len(detected) if detected else 1.0
    recall = hits / len(windows) if windows else 1.0
    return precision, recall
