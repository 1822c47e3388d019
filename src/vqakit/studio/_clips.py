"""The video a participant watches: the sample's window on its own (`vqakit.video.cut_window`),
never the file it is cut from, so that a human baseline is as blind to the rest of the video as
the model is. Each cut is made once (one at a time per window, however many ask at once) and
kept as a file under the cache folder, named by a digest of the video's version (path, size,
modification time), the window and the cut's settings: a video replaced since is cut again."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

from vqakit.files import cache_folder, write_text_atomic
from vqakit.schema import Sample
from vqakit.studio._media import media_file
from vqakit.studio._workspace import Workspace

MAX_FPS = 30.0
SHORT_SIDE = 720  # pixels: a larger video is scaled down for the browser


class WindowClips:
    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or cache_folder() / "studio-clips"
        self._lock = threading.Lock()
        self._busy: dict[str, threading.Lock] = {}

    def get(self, workspace: Workspace, sample: Sample) -> tuple[Path, float]:
        """(the clip file of the sample's window, its length in seconds). LookupError when the
        sample has no video, or its video is no longer a file inside the folder."""
        from vqakit.video import Resize, cut_window

        if not sample.videos:
            raise LookupError(f"{sample.id} has no video of its own")
        ref = sample.videos[0]
        path = media_file(workspace, ref.path)
        if path is None:
            raise LookupError(f"{ref.path} is not a media file inside {workspace.name}")
        stat = path.stat()
        version = [str(path), stat.st_size, stat.st_mtime_ns, ref.start_s, ref.end_s, MAX_FPS, SHORT_SIDE]
        digest = hashlib.sha256(json.dumps(version).encode()).hexdigest()[:32]
        target = self.folder / f"{digest}.mp4"
        length = target.with_suffix(".json")
        with self._lock:
            busy = self._busy.setdefault(digest, threading.Lock())
        with busy:
            if not (target.is_file() and length.is_file()):
                self.folder.mkdir(parents=True, exist_ok=True)
                partial = target.with_name(f".{digest}.{os.getpid()}.{threading.get_ident()}.mp4")
                try:
                    clip = cut_window(
                        path,
                        ref.start_s,
                        ref.end_s,
                        partial,
                        max_fps=MAX_FPS,
                        resize=Resize(short_side=SHORT_SIDE),
                    )
                    os.replace(partial, target)
                finally:
                    partial.unlink(missing_ok=True)
                write_text_atomic(length, json.dumps({"duration_s": clip.duration_s}))
        return target, float(json.loads(length.read_text(encoding="utf-8"))["duration_s"])
