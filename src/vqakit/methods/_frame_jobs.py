"""One decode job: a video's frames decoded in one forward pass, each made into what is sent
(drawn on, where a method draws, then encoded), and the strips wanted of them. Plain data in and
out, so a job runs in a worker process as well as in a thread."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vqakit.video import Resize

JOB_FRAMES = 64  # frames per decode job, about: a job ends at a GOP's end once it has this many

Drawing = tuple[Callable[[Any, Any], Any], Any]  # (draw(RGB array, what) -> RGB array, what to draw)


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


def sent_image(image: Any, encoding: dict[str, Any] | None) -> Any:
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


def warm_decoder() -> None:
    """Import what a job uses (PyAV, the resize, the JPEG encoders): a worker process does it once,
    before its first job."""
    from vqakit.models import jpeg_encoder, sent_jpeg  # noqa: F401
    from vqakit.video import decode_frames, frame_index  # noqa: F401

    jpeg_encoder()


def run_job(job: DecodeJob) -> JobResult:
    import numpy as np

    from vqakit.video import decode_frames, frame_index

    outputs = job.outputs or tuple((n, n, None) for n in job.numbers)
    by_number: dict[int, list[tuple[Any, Drawing | None]]] = {}
    for key, number, drawing in outputs:
        by_number.setdefault(number, []).append((key, drawing))

    def made(number: int, image: Any) -> dict[Any, Any]:
        """What is sent of one decoded frame, made as it is decoded (the pixels are let go)."""
        return {
            key: sent_image(image if drawing is None else drawing[0](image, drawing[1]), job.encoding)
            for key, drawing in by_number.get(number, [])
        }

    decoded = decode_frames(
        frame_index(job.path),
        np.asarray(job.numbers, dtype=np.int64),
        resize=job.resize,
        workers=1,
        frame_threads=job.frame_threads,
        then=made,
    )
    result = JobResult(frames_decoded=len(decoded))
    for frame in decoded:
        result.frames.update(frame.image)
    result.strips = [strip_of([result.frames[key] for key in keys]) for keys in job.strips]
    return result


def job_chunks(path: str, numbers: list[int]) -> list[list[int]]:
    """Sorted frame numbers of one video cut into decode jobs of about `JOB_FRAMES`, at GOP ends
    where this process knows the video's frame index (a GOP split between two jobs would be
    decoded by both), else by count."""
    from vqakit.video import built_frame_index, decode_starts

    index = built_frame_index(path)
    if index is None or len(numbers) <= JOB_FRAMES:
        return [numbers[start : start + JOB_FRAMES] for start in range(0, len(numbers), JOB_FRAMES)]
    starts = decode_starts(index, numbers).tolist()
    chunks: list[list[int]] = [[]]
    for at, number in enumerate(numbers):
        chunk = chunks[-1]
        full = len(chunk) >= JOB_FRAMES and starts[at] != starts[at - 1]
        if full or len(chunk) >= 4 * JOB_FRAMES:  # a GOP with more wanted frames than that is cut
            chunks.append([])
        chunks[-1].append(number)
    return chunks
