"""The one call that turns a video and a sampling spec into frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vqakit.schema import SamplingSpec, sample_times
from vqakit.video._decode import Frame, decode_frames
from vqakit.video._errors import VideoError
from vqakit.video._index import FrameIndex, frame_index
from vqakit.video._resize import Resize


def sample_frames(
    path: str | Path,
    spec: SamplingSpec,
    *,
    resize: Resize | None = None,
    exact: bool = True,
    workers: int | None = None,
) -> list[Frame]:
    """Decode the frames a spec asks for, in the spec's order, each with its true time.

    `exact=False` is the fast mode for long videos: each frame is the keyframe at or before
    the asked time (up to one GOP early; its reported time and number are its own).
    """
    index, numbers = picked_frames(path, spec)
    return decode_frames(index, numbers, resize=resize, keyframes_only=not exact, workers=workers)


def picked_frames(path: str | Path, spec: SamplingSpec) -> tuple[FrameIndex, np.ndarray]:
    """The video's frame index and the numbers of the frames `spec` picks from it, in the spec's
    order: the one definition shared by `sample_frames` and the frames a run sends. A spec the
    video cannot satisfy is a VideoError naming the video."""
    index = frame_index(path)
    try:
        times = sample_times(spec, index.duration_s)
    except ValueError as error:
        raise VideoError(path, str(error)) from None
    return index, index.frames_at(times)
