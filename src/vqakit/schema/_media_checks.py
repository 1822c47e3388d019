"""Checks of the files that samples and clips point at: subtitles, masks and videos.

Every media path is relative to the benchmark folder and must stay inside it, also after
symbolic links are followed, so that nothing a benchmark file says makes vqakit read elsewhere.
Each file is looked up once and each video probed once, but every line that refers to a bad
file gets its own problem. Opening media goes through a `MediaChecker` the caller supplies
(the video layer sits above this one).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from vqakit.schema._sample import Sample, VideoRef
from vqakit.schema._trace import find_times

Report = Callable[[str, int, str, str], None]
"""Records one problem: file, line, field, message."""


class MediaChecker(Protocol):
    """Opens media for the checks that need it; each method raises with a readable message."""

    def video_duration(self, path: Path) -> float:
        """The video's duration in seconds; raises for unreadable or truncated files."""
        ...

    def check_subtitles(self, path: Path) -> None: ...

    def check_image(self, path: Path) -> None: ...


def _recorded_link(root: Path, relative: str) -> bool:
    """Whether `relative` is a symbolic link to an absolute path that `--link-media` recorded:
    the link itself lies inside `root` (no `..`, no other link on the way)."""
    path = root / relative
    try:
        if not path.is_symlink() or not os.path.isabs(os.readlink(path)):
            return False
        return path.parent.resolve().is_relative_to(root.resolve()) and ".." not in Path(relative).parts
    except (OSError, RuntimeError):
        return False


def media_path_problem(root: Path, relative: str, *, linked: bool = False) -> str | None:
    """Why `relative` cannot name a file of the benchmark folder `root`; None when it can.
    `linked` (the card's `linked_media`): a link to an absolute path recorded in the folder is
    followed wherever it leads."""
    if "\x00" in relative:
        return "holds a NUL character"
    if Path(relative).is_absolute() or relative.startswith("~"):
        return "is absolute; media paths are relative to the benchmark folder"
    if linked and _recorded_link(root, relative):
        return None
    try:
        inside = (root / relative).resolve().is_relative_to(root.resolve())
    except (OSError, RuntimeError) as error:  # RuntimeError: a symlink loop (Python 3.11)
        return f"cannot be followed ({getattr(error, 'strerror', None) or 'symbolic link loop'})"
    if inside:
        return None
    base = os.path.normpath(root.absolute())
    if Path(os.path.normpath(os.path.join(base, relative))).is_relative_to(base):
        return "escapes the benchmark folder through a symbolic link"
    return "escapes the benchmark folder"


def safe_media_path(root: Path, relative: str, *, linked: bool = False) -> Path | None:
    """The media file's path, or None when `relative` is absolute or leads out of the folder
    (through `..` or a symbolic link; see `media_path_problem` for `linked`)."""
    return None if media_path_problem(root, relative, linked=linked) else root / relative


def _shown(relative: str) -> str:
    return repr(relative) if len(relative) <= 120 else f"{relative[:100]!r}... ({len(relative)} characters)"


def _beyond(time_s: float, duration: float | None) -> str | None:
    if duration is not None and time_s > duration + 1e-3:
        return f"{time_s:g}s is beyond the video's duration ({duration:.3f}s)"
    return None


class MediaChecks:
    """The media checks of one folder; `report` receives every problem found. With `missing_ok`
    a missing file is not a problem (loading a benchmark to run it: each sample that needs the
    file fails on its own), while a path that leaves the folder still is."""

    def __init__(
        self,
        root: Path,
        checker: MediaChecker | None,
        report: Report,
        *,
        missing_ok: bool = False,
        linked: bool = False,
    ) -> None:
        self.root, self.checker, self.report = root, checker, report
        self.missing_ok, self.linked = missing_ok, linked
        self._found: dict[str, Path | str] = {}  # relative path -> file, or why it is unusable
        self._opened: dict[tuple[str, str], tuple[float | None, str | None]] = {}  # -> (duration, problem)

    def _file(self, relative: str) -> Path | str | None:
        """The file, or why it is unusable, or None when it is missing and that is allowed."""
        if relative not in self._found:
            self._found[relative] = self._locate(relative)
        found = self._found[relative]
        if self.missing_ok and isinstance(found, str) and found.startswith("missing media file"):
            return None
        return found

    def usable(self, relative: str) -> bool:
        """Whether the file is found inside the folder (or may be missing); no problem reported."""
        return not isinstance(self._file(relative), str)

    def _locate(self, relative: str) -> Path | str:
        if problem := media_path_problem(self.root, relative, linked=self.linked):
            return f"path {_shown(relative)} {problem}"
        path = self.root / relative
        try:
            if path.is_file():
                return path
            exists = path.exists()
        except OSError as error:  # e.g. a name too long for the file system
            return f"media file {_shown(relative)} cannot be looked up ({error.strerror})"
        if exists:
            return f"media file {_shown(relative)} is not a regular file"
        return f"missing media file {_shown(relative)}"

    def _open(
        self, checker: MediaChecker, kind: str, relative: str, path: Path
    ) -> tuple[float | None, str | None]:
        key = (kind, relative)
        if key not in self._opened:
            try:
                if kind == "video":
                    self._opened[key] = (float(checker.video_duration(path)), None)
                else:
                    (checker.check_subtitles if kind == "subtitles" else checker.check_image)(path)
                    self._opened[key] = (None, None)
            except Exception as error:
                self._opened[key] = (None, f"unreadable {kind}: {error}")
        return self._opened[key]

    def opened(self, sample: Sample) -> bool:
        """Whether every file this sample names has been looked up and opened already: checking
        it again reads nothing from disk."""
        for ref in sample.videos:
            found = self._found.get(ref.path)
            if found is None or (isinstance(found, Path) and ("video", ref.path) not in self._opened):
                return False
        others = [(sample.subtitles, "subtitles")] if sample.subtitles is not None else []
        others += [(p.mask, "mask") for track in sample.objects for p in track.points if p.mask is not None]
        for relative, kind in others:
            found = self._found.get(relative)
            if found is None or (isinstance(found, Path) and (kind, relative) not in self._opened):
                return False
        return True

    def video(self, file: str, line: int, name: str, ref: VideoRef) -> float | None:
        """Check one video reference; its duration when the video could be opened."""
        found = self._file(ref.path)
        if isinstance(found, str):
            self.report(file, line, f"{name}.path", found)
            return None
        if self.checker is None or found is None:
            return None
        duration, problem = self._open(self.checker, "video", ref.path, found)
        if problem is not None:
            self.report(file, line, f"{name}.path", problem)
        for key in ("start_s", "end_s"):
            value = getattr(ref, key)
            if value is not None and (message := _beyond(value, duration)):
                self.report(file, line, f"{name}.{key}", message)
        return duration

    def other(self, file: str, line: int, name: str, relative: str, kind: str) -> None:
        """Check a subtitle file (`kind` "subtitles") or a mask image ("mask")."""
        found = self._file(relative)
        if isinstance(found, str):
            self.report(file, line, name, found)
        elif (
            found is not None
            and self.checker is not None
            and (problem := self._open(self.checker, kind, relative, found)[1])
        ):
            self.report(file, line, name, problem)

    def sample(self, file: str, line: int, sample: Sample) -> None:
        """Every media check of one sample: videos, subtitles, track points, trace times."""
        durations = [self.video(file, line, f"videos.{i}", ref) for i, ref in enumerate(sample.videos)]
        if sample.subtitles is not None:
            self.other(file, line, "subtitles", sample.subtitles, "subtitles")
        for t, track in enumerate(sample.objects):
            if track.video >= len(sample.videos):
                self.report(file, line, f"objects.{t}.video", f"no video {track.video} in this sample")
                continue
            for p, point in enumerate(track.points):
                name = f"objects.{t}.points.{p}"
                if message := _beyond(point.time_s, durations[track.video]):
                    self.report(file, line, f"{name}.time_s", message)
                if point.mask is not None:
                    self.other(file, line, f"{name}.mask", point.mask, "mask")
        if sample.reasoning and sample.videos:
            for start, end in find_times(sample.reasoning):
                if message := _beyond(max(start, end), durations[0]):
                    self.report(file, line, "reasoning", message)
                    break


class SampleMediaChecks:
    """The media checks `vqakit validate` runs (`MediaChecks.sample`), one sample at a time, for
    a run: eval asks before each sample, so a sample validate refuses (a window beyond its
    video, say `end_s: 1e308`) is refused by eval too, with the same words, instead of being
    run on a clamped window. A missing file is left to the method (the sample fails there, or
    does not need it). Each file is opened once; safe to call from several threads."""

    def __init__(self, root: Path, checker: MediaChecker, *, linked: bool = False) -> None:
        self._found: list[str] = []
        self._checks = MediaChecks(root, checker, self._report, missing_ok=True, linked=linked)
        self._lock = threading.Lock()

    def _report(self, file: str, line: int, field: str, message: str) -> None:
        self._found.append(f"{field}: {message}")

    def opened(self, sample: Sample) -> bool:
        """Whether `problems(sample)` would read nothing from disk (cheap enough for the event loop)."""
        with self._lock:
            return self._checks.opened(sample)

    def problems(self, sample: Sample) -> list[str]:
        """`field: problem` for each problem validate would list for this sample."""
        with self._lock:
            self._found = []
            self._checks.sample("", 0, sample)
            return list(self._found)
