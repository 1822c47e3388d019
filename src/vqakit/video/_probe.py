"""Fast facts about a video file, read from its header (plus one decoded frame for rotation),
and on request a cheap check that the data reaches the end the header declares."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from vqakit.video._errors import VideoError
from vqakit.video._index import built_frame_index, file_version_key, frame_index, open_video

if TYPE_CHECKING:
    import av


@dataclass(frozen=True)
class VideoInfo:
    path: str
    duration_s: float
    fps: float
    frame_count: int
    width: int  # as stored; swap with height when rotation is 90 or 270
    height: int
    rotation: int  # degrees counter-clockwise a player turns the picture for display
    codec: str
    has_audio: bool

    @property
    def display_size(self) -> tuple[int, int]:
        if self.rotation % 180:
            return self.height, self.width
        return self.width, self.height


_TAIL_S = 1.0  # the end check demuxes from the keyframe before this many seconds before the end
_END_TOLERANCE_S = 0.25  # data may end this much before an end declared for the whole file
_DECLARED_END_FORMATS = {"mov", "mp4", "matroska", "webm", "avi"}  # headers that state the duration


def _declared_ends(
    container: av.container.InputContainer, streams: list[av.stream.Stream]
) -> tuple[float | None, dict[int, float]]:
    """Where the header says the data of the whole file and of each stream ends (seconds)."""
    import av  # PyAV: imported when a video is read

    if not _DECLARED_END_FORMATS.intersection(container.format.name.split(",")):
        return None, {}  # e.g. MPEG-TS or raw streams: durations estimated from bitrate or the end
    ends = {
        stream.index: float(((stream.start_time or 0) + stream.duration) * stream.time_base)
        for stream in streams
        if stream.duration and stream.time_base
    }
    if ends:
        return max(ends.values()), ends
    if container.duration:  # Matroska counts it from 0, others from the start time: take the earlier
        start = container.start_time or 0
        return min(container.duration, start + container.duration) / av.time_base, ends
    return None, ends


def _check_end(
    path: Path, container: av.container.InputContainer, stream: av.video.stream.VideoStream
) -> None:
    """Raise a VideoError when the data stops before the end the header declares: a file cut
    short (an interrupted download or copy) whose header still describes the whole video.

    Demuxes (never decodes) only the packets from the keyframe before the last second, so it
    costs one seek and a GOP's worth of reading whatever the video's length.
    """
    import av  # PyAV: imported when a video is read

    streams = [*container.streams.video, *container.streams.audio]
    declared, stream_ends = _declared_ends(container, streams)
    if declared is None or not stream.time_base:
        return
    ends: dict[int, float] = {}  # stream index -> end of its last packet
    longest: dict[int, float] = {}  # stream index -> longest packet duration seen
    incomplete = False
    try:
        container.seek(max(0, int((declared - _TAIL_S) / stream.time_base)), stream=stream, backward=True)
        for packet in container.demux(*streams):
            stamp = packet.pts if packet.pts is not None else packet.dts
            if stamp is None or packet.size == 0 or packet.time_base is None:
                continue
            incomplete = incomplete or packet.is_corrupt
            index, length = packet.stream.index, float((packet.duration or 0) * packet.time_base)
            ends[index] = max(ends.get(index, 0.0), float(stamp * packet.time_base) + length)
            longest[index] = max(longest.get(index, 0.0), length)
    except av.FFmpegError as error:
        raise VideoError(path, f"unreadable near its end, truncated or damaged ({error})") from None
    if not ends:
        raise VideoError(
            path, f"truncated: the header declares data until {declared:.3f}s, but none is there"
        )
    short = [(declared, max(ends.values()), "")] if max(ends.values()) < declared - _END_TOLERANCE_S else []
    for index, end in ends.items():
        if index in stream_ends and end < stream_ends[index] - (1.5 * longest[index] or _END_TOLERANCE_S):
            short.append((stream_ends[index], end, f"{container.streams[index].type} "))
    if short:
        until, end, kind = short[0]
        raise VideoError(
            path, f"truncated: the header declares {kind}data until {until:.3f}s, but it ends at {end:.3f}s"
        )
    if incomplete:
        raise VideoError(path, "truncated or damaged: a packet near the end is incomplete")


def probe(path: str | Path, *, exact: bool = False, check_end: bool = False) -> VideoInfo:
    """Header facts; with `exact=True` duration and frame count come from the frame index.

    Header numbers can be off for files with broken or missing durations (some WebM, AVI);
    the exact variant demuxes the whole stream (about 0.15 s per 10 minutes of 720p).
    `check_end=True` also checks that the data reaches the end the header declares (a
    truncated MP4 whose index sits at the front opens and decodes its first frame like a
    whole one); it reads only the last GOP or so.
    """
    import av  # PyAV: imported when a video is read

    path = Path(path)
    container, stream = open_video(path)
    with container:
        rate = stream.average_rate or stream.guessed_rate or stream.base_rate
        fps = float(rate) if rate else 0.0
        if stream.duration is not None and stream.time_base:
            duration = float(stream.duration * stream.time_base)
        else:
            duration = container.duration / av.time_base if container.duration else 0.0
        frames = stream.frames or round(duration * fps)
        rotation = 0
        try:
            first = next(container.decode(stream), None)
        except av.FFmpegError as error:
            raise VideoError(path, f"first frame cannot be decoded ({error})") from None
        if first is None:
            raise VideoError(path, "has no decodable video frames")
        rotation = int(first.rotation) % 360
        if check_end:
            _check_end(path, container, stream)
        info = VideoInfo(
            path=str(path),
            duration_s=duration,
            fps=fps,
            frame_count=frames,
            width=stream.codec_context.width,
            height=stream.codec_context.height,
            rotation=rotation,
            codec=stream.codec_context.name,
            has_audio=bool(container.streams.audio),
        )
    if exact or not duration or not frames:
        index = frame_index(path)
        info = VideoInfo(
            **{**info.__dict__, "duration_s": index.duration_s, "frame_count": index.frame_count}
        )
    return info


_DURATIONS: OrderedDict[tuple[str, int, int], float] = OrderedDict()  # by file version
_DURATIONS_LOCK = threading.Lock()  # remembered from the threads that plan frames


def remember_duration(path: str | Path, seconds: float) -> None:
    """Note the exact duration of this version of the video, known without its index (the
    frame store keeps it with the frames a spec picked), for `duration_s`."""
    version = file_version_key(path)
    if version is not None:
        with _DURATIONS_LOCK:
            _DURATIONS[version] = seconds
            _DURATIONS.move_to_end(version)
            while len(_DURATIONS) > 4096:
                _DURATIONS.popitem(last=False)


def remembered_duration(path: str | Path) -> float | None:
    """The exact duration of this version of the video when this process knows it without
    reading the file (a frame index it built, or `remember_duration`), else None."""
    index = built_frame_index(path)
    if index is not None:
        return index.duration_s
    version = file_version_key(path)
    with _DURATIONS_LOCK:
        return _DURATIONS.get(version) if version is not None else None


def duration_s(path: str | Path) -> float:
    """The video's duration: exact from its frame index when this process has built one or was
    told it (`remember_duration`), else from the header (`probe`), which reads far less than an
    index of a long video."""
    known = remembered_duration(path)
    return known if known is not None else probe(path).duration_s
