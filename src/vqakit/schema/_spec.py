"""Frame sampling specs: which times of a video to take frames at.

Spec kinds and the times they ask for, over a window [start, end) (default: the whole video):

- `Uniform(n)`: the centres of n equal slices, start + (i + 0.5) * (end - start) / n. Centres,
  not edges, so no frame sits on the very first or last instant and n=1 is the middle.
- `Fps(f, max_frames=m)`: start, start + 1/f, start + 2/f, ... while < end; if that gives more
  than m times, `Uniform(m)` over the same window instead.
- `Timestamps(t1, t2, ...)`: exactly these times, in this order (repeats allowed).

Every requested time maps to the frame whose presentation interval contains it (`_index`).
As strings (CLI, configs, sweeps): `uniform:64`, `uniform:8@10-40` (window in seconds),
`fps:2`, `fps:1,max=64`, `at:1.5,3,12.25`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class Uniform:
    n: int
    start_s: float | None = None
    end_s: float | None = None

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError(f"uniform sampling needs n >= 0, got {self.n}")


@dataclass(frozen=True)
class Fps:
    fps: float
    max_frames: int | None = None
    start_s: float | None = None
    end_s: float | None = None

    def __post_init__(self) -> None:
        if not self.fps > 0:
            raise ValueError(f"fps must be positive, got {self.fps}")
        if self.max_frames is not None and self.max_frames < 0:
            raise ValueError(f"max frames must be >= 0, got {self.max_frames}")


@dataclass(frozen=True)
class Timestamps:
    times_s: tuple[float, ...]


SamplingSpec = Uniform | Fps | Timestamps


def _window(spec: Uniform | Fps, duration_s: float) -> tuple[float, float]:
    start = 0.0 if spec.start_s is None else float(spec.start_s)
    end = duration_s if spec.end_s is None else min(float(spec.end_s), duration_s)
    if start < 0 or start >= end:
        raise ValueError(
            f"window [{start:g}, {end:g}] is empty or outside the video (duration {duration_s:.3f}s)"
        )
    return start, end


def sample_times(spec: SamplingSpec, duration_s: float) -> np.ndarray:
    """The times (seconds) a spec asks for, on a video of the given duration."""
    import numpy as np  # imported when a video is sampled (a run with its frames kept needs none)

    if isinstance(spec, Timestamps):
        return np.asarray(spec.times_s, dtype=np.float64)
    start, end = _window(spec, duration_s)
    if isinstance(spec, Fps):
        times = start + np.arange(int(np.ceil((end - start) * spec.fps - 1e-9))) / spec.fps
        times = times[times < end]
        if spec.max_frames is None or times.size <= spec.max_frames:
            return times
        spec = Uniform(spec.max_frames, start, end)
    return start + (np.arange(spec.n) + 0.5) * (end - start) / spec.n


_WINDOW = r"(?:@(?P<start>[\d.]+)-(?P<end>[\d.]+))?"


def parse_sampling(text: str) -> SamplingSpec:
    """Parse `uniform:N[@S-E]`, `fps:F[,max=N][@S-E]` or `at:T1,T2,...`."""
    text = text.strip()
    if match := re.fullmatch(r"uniform:(?P<n>\d+)" + _WINDOW, text):
        return Uniform(int(match["n"]), _float(match["start"]), _float(match["end"]))
    if match := re.fullmatch(r"fps:(?P<fps>[\d.]+)(?:,max=(?P<max>\d+))?" + _WINDOW, text):
        cap = int(match["max"]) if match["max"] else None
        return Fps(float(match["fps"]), cap, _float(match["start"]), _float(match["end"]))
    if match := re.fullmatch(r"at:(?P<times>[\d.]+(?:,[\d.]+)*)", text):
        return Timestamps(tuple(float(t) for t in match["times"].split(",")))
    raise ValueError(
        f"cannot read frame spec {text!r}: use uniform:N[@S-E], fps:F[,max=N][@S-E] or at:T1,T2,..."
    )


def _float(value: str | None) -> float | None:
    return None if value is None else float(value)


def check_sampling_text(text: str) -> None:
    """Raise ValueError when `text` is not a valid frame spec."""
    parse_sampling(text)
