"""One decode job: a video's frames decoded in one forward pass, each made into what is sent
(drawn on, where a method draws, then encoded), and the strips wanted of them. Plain data in and
out, so a job runs in a worker process as well as in a thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vqakit.video import Resize

Drawing = tuple[Callable[[np.ndarray, Any], np.ndarray], Any]  # (draw, what to draw on this frame)


@dataclass(frozen=True)
class DecodeJob:
    path: str
    numbers: tuple[int, ...]  # distinct frame numbers, ascending
    resize: Resize | None
    encoding: dict[str, Any] | None  # `models.image_encoding(...)`; None: RGB arrays as decoded
    # what to make: (frame key, frame number, drawing or None); by default each number as decoded
    outputs: tuple[tuple[str, int, Drawing | None], ...] = ()
    strips: tuple[tuple[Any, ...], ...] = ()  # the outputs (keys) whose strip (`video.strip_jpeg`) is wanted
    frame_threads: bool | None = None


@dataclass
class JobResult:
    frames: dict[Any, Any] = field(default_factory=dict)  # output key -> EncodedImage or RGB array
    strips: list[bytes] = field(default_factory=list)  # in the order of `DecodeJob.strips`
    frames_decoded: int = 0


def sent_image(image: np.ndarray, encoding: dict[str, Any] | None) -> Any:
    """A decoded frame as it is sent: JPEG at the encoding's size and quality, or the array."""
    if encoding is None:
        return image
    from vqakit.models import sent_jpeg

    return sent_jpeg(image, encoding["max_side"], encoding["quality"])


def strip_of(images: list[Any]) -> bytes:
    """The strip of frames as sent (JPEGs are read back at the strip's scale, not re-encoded)."""
    from vqakit.models import EncodedImage
    from vqakit.video import strip_jpeg

    return strip_jpeg([image.data if isinstance(image, EncodedImage) else image for image in images])


def run_job(job: DecodeJob) -> JobResult:
    from vqakit.video import decode_frames, frame_index

    index = frame_index(job.path)
    decoded = decode_frames(
        index,
        np.asarray(job.numbers, dtype=np.int64),
        resize=job.resize,
        workers=1,
        frame_threads=job.frame_threads,
    )
    result = JobResult(frames_decoded=len(decoded))
    images = {frame.frame_number: frame.image for frame in decoded}
    outputs = job.outputs or tuple((n, n, None) for n in job.numbers)
    for key, number, drawing in outputs:
        image = images[number]
        if drawing is not None:
            draw, what = drawing
            image = draw(image, what)
        result.frames[key] = sent_image(image, job.encoding)
    result.strips = [strip_of([result.frames[key] for key in keys]) for keys in job.strips]
    return result
