"""What the studio shows of a sample's media: files of the benchmark folder (with HTTP Range,
so that seeking works), the frames the protocol sends, and the subtitle cues of the window.

Only files a sample, a track or a corpus clip names (or a video of a folder being annotated)
are served, and only when they stay inside the folder (no `..`, no absolute path, no symbolic
link leading out): samples.jsonl and the rest of the folder are never sent as media.
"""

from __future__ import annotations

import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from vqakit.methods import window_spec
from vqakit.schema import Benchmark, Protocol, Sample, safe_media_path
from vqakit.studio._workspace import Workspace

if TYPE_CHECKING:
    from vqakit.video import Resize

MEDIA_TYPES = {
    ".mp4": "video/mp4",
    ".m4v": "video/mp4",
    ".mov": "video/quicktime",
    ".webm": "video/webm",
    ".mkv": "video/x-matroska",
    ".avi": "video/x-msvideo",
    ".srt": "text/plain; charset=utf-8",
    ".vtt": "text/vtt; charset=utf-8",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
}


def named_media(benchmark: Benchmark | None) -> set[str]:
    """Every path the benchmark names as media (videos, subtitles, masks, clips)."""
    if benchmark is None:
        return set()
    found: set[str] = set()
    for sample in benchmark.samples:
        found.update(ref.path for ref in sample.videos)
        if sample.subtitles:
            found.add(sample.subtitles)
        found.update(p.mask for track in sample.objects for p in track.points if p.mask)
    found.update(clip.video.path for clip in benchmark.clips.values())
    return found


def media_file(workspace: Workspace, relative: str) -> Path | None:
    """The file to send for `relative`, or None when it is not media of this folder."""
    allowed = named_media(workspace.benchmark())
    if workspace.annotation is not None:
        allowed.update(workspace.annotation.videos())
    if relative not in allowed:
        return None
    path = safe_media_path(workspace.root, relative)
    if path is None:
        return None
    resolved, root = path.resolve(), workspace.root.resolve()
    if not resolved.is_relative_to(root) or not resolved.is_file():
        return None
    return resolved


def _version(path: Path) -> tuple[int, int]:
    """(size, modification time): a file replaced since is decoded again."""
    stat = path.stat()
    return stat.st_size, stat.st_mtime_ns


def media_type(path: Path) -> str:
    return MEDIA_TYPES.get(path.suffix.lower(), "application/octet-stream")


@dataclass(frozen=True)
class ShownFrames:
    times_s: list[float]
    jpegs: list[bytes]

    @cached_property
    def strip(self) -> bytes:
        """The frames as one strip (JPEG), as a run keeps them: made once, whoever answers."""
        from vqakit.video import strip_jpeg

        return strip_jpeg(self.jpegs)


class FrameCache:
    """The frames the protocol sends for recent windows of videos, decoded once, as JPEG."""

    def __init__(self, size: int = 48) -> None:
        self._items: OrderedDict[tuple[str, str], ShownFrames] = OrderedDict()
        self._lock = threading.Lock()
        self._busy: dict[tuple[str, str], threading.Lock] = {}
        self.size = size

    def get(self, workspace: Workspace, sample: Sample, protocol: Protocol) -> ShownFrames:
        """The frames of the sample, from its video as it is now: LookupError when the video is
        no longer a file inside the folder (replaced by a link leading out, say)."""
        # samples over the same window of the same video are sent the same frames
        ref = sample.videos[0] if sample.videos else None
        path = None
        if ref is not None:
            path = media_file(workspace, ref.path)
            if path is None:
                raise LookupError(f"{ref.path} is not a media file inside {workspace.name}")
        version = _version(path) if path is not None else None
        window = (ref.path, ref.start_s, ref.end_s, version) if ref else ("", sample.id, None)
        resize = protocol_resize(protocol)
        size = resize.key() if resize is not None else None
        key = (str(workspace.root), f"{window}\x00{protocol.frames}\x00{size}")
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            busy = self._busy.setdefault(key, threading.Lock())
        with busy:  # one decode per sample, however many thumbnails ask at once
            with self._lock:
                if key in self._items:
                    return self._items[key]
            frames = protocol_frames(path, sample, protocol)
            with self._lock:
                self._items[key] = frames
                self._busy.pop(key, None)
                while len(self._items) > self.size:
                    self._items.popitem(last=False)
            return frames


def protocol_resize(protocol: Protocol) -> Resize | None:
    """How the protocol sizes the frames a model is sent (as the `direct` method does)."""
    from vqakit.video import Resize

    if not protocol.short_side:
        return None
    return Resize(short_side=protocol.short_side, upscale=protocol.upscale)


def protocol_frames(path: Path | None, sample: Sample, protocol: Protocol) -> ShownFrames:
    """The frames a model is sent for the sample (protocol frames in its window, resized), from
    its video at `path` (checked by `media_file`; None: the sample has no video)."""
    from PIL import Image

    from vqakit.video import sample_frames

    if path is None or not sample.videos:
        return ShownFrames([], [])
    spec = window_spec(sample, protocol.frames)
    frames = sample_frames(path, spec, resize=protocol_resize(protocol))
    jpegs = []
    for frame in frames:
        buffer = io.BytesIO()
        Image.fromarray(frame.image).save(buffer, format="JPEG", quality=85)
        jpegs.append(buffer.getvalue())
    return ShownFrames([round(f.time_s, 3) for f in frames], jpegs)


def subtitle_lines(root: Path, sample: Sample) -> list[str]:
    """The subtitle cues of the sample's window, as a model is given them (`[MM:SS] text`)."""
    if not sample.subtitles:
        return []
    from vqakit.models import clock
    from vqakit.video import cues_between, read_subtitles

    path = safe_media_path(root, sample.subtitles)
    if path is None or not path.is_file():
        return []
    ref = sample.videos[0] if sample.videos else None
    start = (ref.start_s or 0.0) if ref else 0.0
    end = ref.end_s if ref and ref.end_s is not None else float("inf")
    return [
        f"{clock(c.start_s)} {c.text}".replace("\n", " ")
        for c in cues_between(read_subtitles(path), start, end)
    ]
