"""Exact and keyframe-only frame decoding with PyAV.

Exact mode returns, for each wanted frame, that very frame. It beats the usual
"seek to the keyframe before each target and decode forward" approach three ways:

1. targets that share a keyframe share one forward decode (a *run*), and a run that starts
   where the previous one stopped continues without seeking;
2. packets of pictures that no other picture references (`_nal.is_disposable`) are dropped
   before the decoder unless they are themselves wanted;
3. runs are split into contiguous chunks decoded in parallel threads, each with its own
   demuxer and decoder (PyAV releases the GIL while decoding and scaling).

Only wanted frames are converted to RGB, and only they are kept, so memory grows with the
number and size of the returned frames, never with the length of the video.

Keyframe mode decodes only the keyframe at or before each target: fast on hour-long videos,
but each frame may be up to one GOP early. It reports each frame's true time and number.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import av
import numpy as np

from vqakit.video._errors import VideoError
from vqakit.video._index import FrameIndex, open_video
from vqakit.video._resize import Resize

_MAX_READ_AHEAD = 120
"""Packets a worker reads and drops to reach its next run instead of seeking."""
_SEEK_COST = 8
"""Rough cost of one seek, in decoded frames, for balancing work between threads."""


@dataclass(frozen=True)
class Frame:
    """One decoded RGB frame and where it sits in the video."""

    image: Any  # (height, width, 3) uint8 RGB, display orientation (or what `then` made of it)
    time_s: float  # presentation time of this frame (see _index for the convention)
    frame_number: int  # 0-based, presentation order


@dataclass
class _Run:
    key: int  # decode position of the keyframe the run starts from
    last: int  # decode position of the last wanted packet
    wanted: set[int] = field(default_factory=set)  # pts of the wanted frames
    cost: int = 0


def _start_keyframes(index: FrameIndex, frame_numbers: np.ndarray) -> np.ndarray:
    """Decode position of the keyframe from which each frame's decode starts."""
    key_positions = np.flatnonzero(index.decode_is_key)
    key_pts = np.maximum.accumulate(index.decode_pts[key_positions])
    slots = np.searchsorted(key_pts, index.pts[frame_numbers], side="right") - 1
    return key_positions[np.maximum(slots, 0)]


def decode_starts(index: FrameIndex, frame_numbers: np.ndarray) -> np.ndarray:
    """For each frame, the decode position of the keyframe its decode starts from: frames with
    the same start share a GOP's forward decode (planners keep them in one job)."""
    return _start_keyframes(index, np.asarray(frame_numbers, dtype=np.int64))


def _plan_runs(index: FrameIndex, frame_numbers: np.ndarray) -> list[_Run]:
    numbers = np.unique(frame_numbers)
    runs: dict[int, _Run] = {}
    for number, key in zip(numbers.tolist(), _start_keyframes(index, numbers).tolist(), strict=True):
        run = runs.setdefault(key, _Run(key=key, last=key))
        run.wanted.add(int(index.pts[number]))
        run.last = max(run.last, int(index.decode_position[number]))
    ordered = [runs[key] for key in sorted(runs)]
    for run in ordered:
        span = index.decode_disposable[run.key : run.last + 1]
        run.cost = _SEEK_COST + int(span.size - span.sum())
    return ordered


def _split(runs: list[_Run], parts: int) -> list[list[_Run]]:
    """Contiguous chunks of runs with roughly equal decode cost."""
    total = sum(run.cost for run in runs)
    chunks: list[list[_Run]] = [[]]
    done = 0
    for run in runs:
        if chunks[-1] and done >= total * len(chunks) / parts and len(chunks) < parts:
            chunks.append([])
        chunks[-1].append(run)
        done += run.cost
    return chunks


class _RunDecoder:
    """Decodes a chunk of runs with one demuxer and one decoder."""

    def __init__(
        self,
        index: FrameIndex,
        convert: Callable[[av.VideoFrame], Any],
        frame_threads: bool,
        skip_disposable: bool,
    ) -> None:
        self.index = index
        self.convert = convert
        self.skip_disposable = skip_disposable
        self.container, self.stream = open_video(index.path)
        context = self.stream.codec_context
        context.thread_type = "AUTO" if frame_threads else "SLICE"
        context.thread_count = 0 if frame_threads else 1
        self.position_of = {int(pts): pos for pos, pts in enumerate(index.decode_pts.tolist())}
        self.packets: Iterator[av.Packet] | None = None
        self.cursor: int | None = None  # decode position of the packet the demuxer yields next
        self.found: dict[int, Any] = {}

    def _seek(self, position: int) -> None:
        target = int(self.index.decode_dts[position]) if position >= 0 else int(self.index.decode_dts.min())
        self.container.seek(target, stream=self.stream, backward=True)
        self.packets = self.container.demux(self.stream)
        self.cursor = None

    def _take(self, frames: list[av.VideoFrame], wanted: set[int]) -> None:
        for frame in frames:
            if frame.pts in wanted:
                wanted.discard(frame.pts)
                self.found[frame.pts] = self.convert(frame)

    def _decode_run(self, run: _Run, from_start: bool = False) -> None:
        if from_start:
            self._seek(-1)
        elif self.cursor is None or not run.key >= self.cursor >= run.key - _MAX_READ_AHEAD:
            self._seek(run.key)
        assert self.packets is not None
        wanted = set(run.wanted)
        context = self.stream.codec_context
        for packet in self.packets:
            if packet.size == 0:
                continue
            stamp = packet.pts if packet.pts is not None else packet.dts
            position = self.position_of.get(stamp, -1)
            if position > run.key and self.cursor is None and not from_start:
                # the demuxer's seek overshot the keyframe: read forward from the stream's start
                return self._decode_run(run, from_start=True)
            self.cursor = position + 1
            if position < run.key:
                continue
            if self.skip_disposable and self.index.decode_disposable[position] and stamp not in wanted:
                continue
            self._take(context.decode(packet), wanted)
            if not wanted:
                return
        self._take(context.decode(None), wanted)
        self.cursor = None
        if wanted:
            missing = ", ".join(f"{float(pts * self.index.time_base):.3f}" for pts in sorted(wanted))
            raise VideoError(self.index.path, f"could not decode the frames at pts time(s) {missing}")

    def decode(self, runs: list[_Run]) -> dict[int, Any]:
        try:
            with self.container:
                for run in runs:
                    self._decode_run(run)
        except av.FFmpegError as error:
            raise VideoError(self.index.path, f"decoding failed ({error})") from None
        return self.found


def _converter(resize: Resize | None, rotate: bool) -> Callable[[av.VideoFrame], np.ndarray]:
    def convert(frame: av.VideoFrame) -> np.ndarray:
        width, height = frame.width, frame.height
        if resize is not None:
            quarter_turn = rotate and frame.rotation % 180 != 0
            display = (height, width) if quarter_turn else (width, height)
            out_w, out_h = resize.output_size(*display)
            width, height = (out_h, out_w) if quarter_turn else (out_w, out_h)
        image = frame.to_ndarray(format="rgb24", width=width, height=height, interpolation="AREA")
        if rotate and frame.rotation % 360:
            image = np.ascontiguousarray(np.rot90(image, k=frame.rotation // 90))
        return image

    return convert


def default_workers() -> int:
    return max(1, min(os.cpu_count() or 1, 4))


def decode_frames(
    index: FrameIndex,
    frame_numbers: np.ndarray,
    *,
    resize: Resize | None = None,
    keyframes_only: bool = False,
    workers: int | None = None,
    frame_threads: bool | None = None,
    skip_disposable: bool = True,
    rotate: bool = True,
    then: Callable[[int, np.ndarray], Any] | None = None,
) -> list[Frame]:
    """Decode the given frame numbers (any order, repeats allowed), in the order asked.

    In keyframe mode each returned frame is the keyframe at or before the asked one.
    `frame_threads` defaults to on when a single worker decodes, off when several do.
    `then(frame_number, image)`, given, gets each frame as it is decoded, and what it returns is
    kept as the frame's `image` instead of the pixels: a caller that encodes each frame holds one
    decoded frame at a time, however many it asks for.
    """
    frame_numbers = np.asarray(frame_numbers, dtype=np.int64)
    if frame_numbers.size == 0:
        return []
    if keyframes_only:
        key_pts = index.decode_pts[_start_keyframes(index, frame_numbers)]
        frame_numbers = np.searchsorted(index.pts, key_pts)
    runs = _plan_runs(index, frame_numbers)
    parts = max(1, min(workers or default_workers(), len(runs)))
    if frame_threads is None:
        frame_threads = parts == 1 and not keyframes_only
    convert = _converter(resize, rotate)
    if then is not None:
        pixels, number_of = convert, {int(index.pts[n]): n for n in set(frame_numbers.tolist())}

        def convert(frame: av.VideoFrame) -> Any:
            return then(number_of[frame.pts], pixels(frame))

    def work(chunk: list[_Run]) -> dict[int, Any]:
        return _RunDecoder(index, convert, frame_threads, skip_disposable).decode(chunk)

    found: dict[int, Any] = {}
    chunks = _split(runs, parts)
    if len(chunks) == 1:
        found.update(work(chunks[0]))
    else:
        with ThreadPoolExecutor(max_workers=len(chunks), thread_name_prefix="vqakit-decode") as pool:
            for part in pool.map(work, chunks):
                found.update(part)
    return [
        Frame(image=found[int(index.pts[n])], time_s=float(index.times_s[n]), frame_number=n)
        for n in frame_numbers.tolist()
    ]
