"""Render the synthetic clips of the `sample` benchmark, whose ground truth is known to the frame.

Run from the repository root:  python scripts/make_sample_clips.py
It (re)writes src/vqakit/benchmarks/sample/media/synthetic/{workbench,counting,crossing}.mp4 and
prints each object's box at its track times, which samples.jsonl copies. The scenes are plain
data below, so tests can recompute where every object is at any time.
"""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

import av
import numpy as np
from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT, FPS = 480, 270, 25
OUT = Path(__file__).resolve().parents[1] / "src/vqakit/benchmarks/sample/media/synthetic"


def object_id(scene: str, name: str) -> str:
    """Stable `name-<16 hex>` id, as Minerva-Ego writes object references."""
    digest = hashlib.sha256(f"{scene}/{name}".encode()).hexdigest()[:16]
    return f"{name.replace(' ', '_')}-{digest}"


@dataclass(frozen=True)
class Shape:
    """A coloured shape moving linearly between (time, x, y) keys; visible in [shown, hidden)."""

    name: str
    kind: str  # "circle", "square", "rect"
    color: tuple[int, int, int]
    size: tuple[int, int]  # width, height in pixels
    keys: tuple[tuple[float, float, float], ...]  # (time_s, centre x, centre y)
    shown: float = 0.0
    hidden: float = 1e9

    def centre(self, t: float) -> tuple[float, float]:
        times = [k[0] for k in self.keys]
        return float(np.interp(t, times, [k[1] for k in self.keys])), float(
            np.interp(t, times, [k[2] for k in self.keys])
        )

    def visible(self, t: float) -> bool:
        return self.shown <= t < self.hidden

    def box(self, t: float) -> tuple[int, int, int, int]:
        x, y = self.centre(t)
        w, h = self.size
        return round(x - w / 2), round(y - h / 2), round(x + w / 2), round(y + h / 2)


@dataclass(frozen=True)
class Scene:
    name: str
    seconds: float
    background: tuple[int, int, int]
    shapes: tuple[Shape, ...]
    captions: tuple[tuple[float, float, str], ...] = ()  # (from, to, text) drawn top-left
    light: tuple[tuple[float, float, str], ...] = ()  # traffic light phases (from, to, colour)


RED, BLUE, GREEN, YELLOW, WHITE = (220, 40, 40), (40, 80, 220), (40, 180, 70), (240, 210, 40), (245, 245, 245)

SCENES = (
    Scene(
        name="workbench",
        seconds=12.0,
        background=(120, 120, 125),
        shapes=(
            Shape(
                "circle", "circle", RED, (44, 44), ((0, 80, 200), (4, 80, 200), (7, 400, 200), (12, 400, 200))
            ),
            Shape("square", "square", BLUE, (48, 48), ((0, 240, 90), (12, 240, 90)), hidden=9.0),
            Shape("bar", "rect", YELLOW, (30, 12), ((0, 330, 140), (12, 330, 140)), shown=2.0),
        ),
        captions=((0.0, 3.0, "STEP 1"), (6.0, 12.0, "STEP 2")),
    ),
    Scene(
        name="counting",
        seconds=10.0,
        background=(30, 30, 40),
        shapes=tuple(
            Shape(
                f"dot {i + 1}",
                "circle",
                GREEN,
                (36, 36),
                ((0, 60 + 70 * i, 150), (10, 60 + 70 * i, 150)),
                shown=1.0 + i,
                hidden=8.0 if i in (1, 4) else 1e9,
            )
            for i in range(6)
        ),
    ),
    Scene(
        name="crossing",
        seconds=9.0,
        background=(90, 100, 90),
        shapes=(
            Shape("car", "rect", WHITE, (70, 30), ((0, 50, 200), (3, 50, 200), (6, 430, 200), (9, 430, 200))),
        ),
        light=((0.0, 3.0, "red"), (3.0, 6.0, "green"), (6.0, 7.5, "yellow"), (7.5, 9.0, "red")),
    ),
)


def _font(size: int) -> ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def render(scene: Scene, t: float) -> np.ndarray:
    image = Image.new("RGB", (WIDTH, HEIGHT), scene.background)
    draw = ImageDraw.Draw(image)
    for shape in scene.shapes:
        if not shape.visible(t):
            continue
        box = shape.box(t)
        if shape.kind == "circle":
            draw.ellipse(box, fill=shape.color)
        else:
            draw.rectangle(box, fill=shape.color)
    for start, end, text in scene.captions:
        if start <= t < end:
            draw.text((12, 8), text, fill=WHITE, font=_font(28))
    if scene.light:
        draw.rectangle((430, 20, 462, 110), fill=(20, 20, 20))
    for start, end, colour in scene.light:
        if start <= t < end:
            lamp = {"red": (446, 36, RED), "yellow": (446, 65, YELLOW), "green": (446, 94, GREEN)}[colour]
            draw.ellipse((lamp[0] - 11, lamp[1] - 11, lamp[0] + 11, lamp[1] + 11), fill=lamp[2])
    return np.asarray(image)


def write_clip(scene: Scene, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = WIDTH, HEIGHT, "yuv420p"
        stream.options = {
            "crf": "20",
            "preset": "medium",
            "x264-params": "keyint=50:min-keyint=50:scenecut=0",
        }
        for i in range(round(scene.seconds * FPS)):
            frame = av.VideoFrame.from_ndarray(render(scene, i / FPS), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def main() -> int:
    for scene in SCENES:
        path = OUT / f"{scene.name}.mp4"
        write_clip(scene, path)
        print(f"wrote {path}")
        for shape in scene.shapes:
            hidden = min(shape.hidden, scene.seconds)
            print(f"  {object_id(scene.name, shape.name)}  shown {shape.shown:g}s  hidden {hidden:g}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
