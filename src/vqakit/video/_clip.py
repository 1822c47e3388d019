"""Video files made from sampled frames: a sample's window cut and re-encoded at the protocol's
frame rate and size (what `--input video` sends to backends that take a clip), and folders of
frame images turned into a video (releases that ship some videos as JPEG folders).

A clip holds exactly the frames the frame route would send: the protocol's spec is sampled in
the window (`sample_frames`), and the frames are encoded at the spec's spacing, so frame k of
the clip sits at `k / fps` and the clip lasts the window. H.264 in MP4 (libx264, or MPEG-4 Part 2
where PyAV has no H.264 encoder); sides are cut to even numbers, as 4:2:0 video needs.
`cut_window` cuts a window of a video as it plays (every frame, up to a rate), for people to
watch that window and nothing else of the file (vqakit studio's participants).
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import numpy as np
from PIL import Image as PILImage

from vqakit.schema import Fps, SamplingSpec, Timestamps, sample_times
from vqakit.video._decode import decode_frames
from vqakit.video._errors import VideoError
from vqakit.video._index import frame_index
from vqakit.video._resize import Resize
from vqakit.video._sampling import sample_frames

MIME = "video/mp4"


@dataclass(frozen=True)
class Clip:
    """An encoded clip and what it holds."""

    data: bytes
    start_s: float  # the window of the source video it shows
    end_s: float
    fps: float  # frames per second of the clip
    frames: int
    width: int
    height: int
    mime: str = MIME

    @property
    def duration_s(self) -> float:
        return self.frames / self.fps


def clip_rate(spec: SamplingSpec, duration_s: float) -> tuple[float, float, float]:
    """(start, end, frames per second) of the clip a spec makes from a video of this duration.
    Times given one by one (`at:`) have no rate: ValueError."""
    if isinstance(spec, Timestamps):
        raise ValueError("a clip needs evenly spaced frames: use uniform:N or fps:F, not at:")
    start = 0.0 if spec.start_s is None else float(spec.start_s)
    end = duration_s if spec.end_s is None else min(float(spec.end_s), duration_s)
    times = sample_times(spec, duration_s)
    if times.size == 0:
        raise ValueError(f"the frame spec gives no frame in the window {start:g}-{end:g} s")
    if isinstance(spec, Fps) and (spec.max_frames is None or times.size < spec.max_frames):
        return start, end, float(spec.fps)
    return start, end, times.size / (end - start)


def _even(image: np.ndarray) -> np.ndarray:
    height, width = image.shape[:2]
    return image[: height - height % 2 or 2, : width - width % 2 or 2]


def _encoder(container: av.container.OutputContainer, rate: Fraction) -> av.VideoStream:
    try:
        stream = container.add_stream("libx264", rate=rate)
        stream.options = {"crf": "20", "preset": "veryfast"}
    except (av.FFmpegError, ValueError):
        stream = container.add_stream("mpeg4", rate=rate)
        stream.options = {"qscale": "3"}
    stream.pix_fmt = "yuv420p"
    return stream


def encode_images(
    images: Iterable[np.ndarray], fps: float, target: str | Path | io.BytesIO
) -> tuple[int, int, int]:
    """Encode RGB images (all one size) as an MP4 at `fps` into `target` (a path or a buffer);
    (frames, width, height) written. ValueError when there is no image."""
    rate = Fraction(fps).limit_denominator(1001)
    count, size = 0, (0, 0)
    # the index at the front for files (players start at once); a buffer cannot be reopened for it
    options = {} if isinstance(target, io.BytesIO) else {"movflags": "+faststart"}
    where = target if isinstance(target, io.BytesIO) else str(target)
    with av.open(where, mode="w", format="mp4", options=options) as container:
        stream = None
        for image in images:
            image = _even(np.ascontiguousarray(image[..., :3]))
            if stream is None:
                stream = _encoder(container, rate)
                stream.height, stream.width = image.shape[:2]
                size = (stream.width, stream.height)
            elif image.shape[1::-1] != size:
                image = np.asarray(PILImage.fromarray(image).resize(size))
            frame = av.VideoFrame.from_ndarray(image, format="rgb24")
            frame.pts = count
            frame.time_base = 1 / rate
            for packet in stream.encode(frame):
                container.mux(packet)
            count += 1
        if stream is None:
            raise ValueError("no frame to encode")
        for packet in stream.encode(None):
            container.mux(packet)
    return count, size[0], size[1]


def cut_clip(path: str | Path, spec: SamplingSpec, resize: Resize | None = None) -> Clip:
    """The frames `spec` picks from the video at `path` (in its window), encoded as one MP4 at
    the spec's rate. VideoError when the video cannot be read; ValueError for an `at:` spec."""
    index = frame_index(path)
    start, end, fps = clip_rate(spec, index.duration_s)
    frames = sample_frames(path, spec, resize=resize)
    buffer = io.BytesIO()
    try:
        count, width, height = encode_images((frame.image for frame in frames), fps, buffer)
    except (av.FFmpegError, ValueError) as error:
        raise VideoError(path, f"cannot encode the clip: {error}") from None
    return Clip(buffer.getvalue(), start, end, fps, count, width, height)


def cut_window(
    path: str | Path,
    start_s: float | None,
    end_s: float | None,
    target: str | Path,
    *,
    max_fps: float = 30.0,
    resize: Resize | None = None,
    chunk: int = 48,
) -> Clip:
    """The window [start_s, end_s) of the video at `path`, on its own, encoded as an MP4 file at
    `target` (its data not held): every frame shown in the window (at most `max_fps` a second,
    evenly kept), none before its start or from its end on, decoded `chunk` frames at a time so
    that memory does not grow with the window. Frame k of the file shows the window at k / fps.
    VideoError when the video cannot be read or the window holds no frame."""
    index = frame_index(path)
    start = max(0.0, float(start_s or 0.0))
    end = index.duration_s if end_s is None else min(float(end_s), index.duration_s)
    numbers = np.flatnonzero((index.times_s >= start - 1e-6) & (index.times_s < end))
    if numbers.size == 0 or end <= start:
        raise VideoError(path, f"no frame in the window {start:g}-{end:g} s")
    rate = numbers.size / (end - start)
    if rate > max_fps:
        kept = np.unique(np.floor(np.arange(0, numbers.size, rate / max_fps)).astype(np.int64))
        numbers = numbers[kept]
    fps = numbers.size / (end - start)

    def images() -> Iterable[np.ndarray]:
        for first in range(0, numbers.size, chunk):
            for frame in decode_frames(index, numbers[first : first + chunk], resize=resize):
                yield frame.image

    try:
        count, width, height = encode_images(images(), fps, target)
    except (av.FFmpegError, ValueError) as error:
        raise VideoError(path, f"cannot encode the window: {error}") from None
    return Clip(b"", start, end, fps, count, width, height)
