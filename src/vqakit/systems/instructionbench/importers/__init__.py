"""Step-annotation importers: the four public formats and a table form into video info.

- `read_steps(path, format="auto", label_map=None)`: a `StepsImport` of videos, problems (records
  skipped or imported incomplete, each "FILE: record KEY: problem") and notes (quirks read as
  they are). One bad record never stops an import; a file that cannot be read at all, or whose
  format cannot be told, is an `InputError` naming it.
- `detect_format(path)`: which of `FORMATS` a file is, from its content.
- `list_steps(...)`: what `vqakit steps` prints: the videos, or their trimmed clips, as JSONL
  records and a summary.

Each format's reader (and its reading of the format) is documented in its own module.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.builders import InputError
from vqakit.systems.instructionbench.importers._common import Loaded, Log, load
from vqakit.systems.instructionbench.importers.goalstep import read_goalstep
from vqakit.systems.instructionbench.importers.hirest import looks_like_hirest, read_hirest
from vqakit.systems.instructionbench.importers.keystep import read_keystep
from vqakit.systems.instructionbench.importers.table import REQUIRED, looks_like_table, read_table, table_rows
from vqakit.systems.instructionbench.importers.youcook2 import read_label_map, read_youcook2
from vqakit.systems.instructionbench.trim import TRIMMED_SOURCES, needs_trimming, split_video
from vqakit.systems.instructionbench.video_info import VideoInfo

FORMATS = ("youcook2", "hirest", "goalstep", "keystep", "table")


@dataclass
class StepsImport:
    """The videos read from one file, what went wrong on the way and which format was read."""

    videos: list[VideoInfo]
    problems: list[str]
    format: str
    notes: list[str] = field(default_factory=list)
    note_kinds: dict[str, int] = field(default_factory=dict)  # quirk -> how many times noted
    detected: bool = False  # the format was told from the content


def detect_format(path: str | Path) -> str:
    """The format of an annotation file, told from its content (not its name)."""
    return _detect(load(path))


def _detect(loaded: Loaded) -> str:
    data = loaded.data
    if isinstance(data, dict):
        if isinstance(data.get("database"), dict):
            return "youcook2"
        if isinstance(data.get("videos"), list):
            return "goalstep"
        takes = data.get("annotations")
        if isinstance(takes, dict) and (
            "taxonomy" in data
            or any(isinstance(t, dict) and "segments" in t for t in list(takes.values())[:5])
        ):
            return "keystep"
        if looks_like_table(data):
            return "table"
        if looks_like_hirest(data):
            return "hirest"
    if isinstance(data, list) and data and looks_like_table(data[0]):
        return "table"
    if not loaded.is_json:
        try:
            rows = table_rows(loaded)
        except InputError:
            if "video_id" in loaded.text.partition("\n")[0]:
                raise  # a table whose header lacks a column: say which
            rows = []
        if any(looks_like_table(row) for _, row in rows):
            return "table"
        if rows and isinstance(rows[0][1], dict):
            line, row = rows[0]
            raise InputError(
                f"{loaded.path}:{line}: JSONL rows need the columns {', '.join(REQUIRED)}; "
                f"this one has {', '.join(map(str, row)) or 'none'}"
            )
        if loaded.text.lstrip()[:1] in ("{", "["):
            raise InputError(f"{loaded.path}: invalid JSON ({loaded.json_error})")
    raise InputError(
        f"{loaded.path}: cannot tell which step-annotation format this is "
        f"({', '.join(FORMATS)}); pass the format explicitly"
    )


def read_steps(path: str | Path, format: str = "auto", *, label_map: str | Path | None = None) -> StepsImport:
    """Every video of an annotation file as video info, with the problems met on the way."""
    if format not in ("auto", *FORMATS):
        raise InputError(f"{path}: unknown format {format!r} (auto, {', '.join(FORMATS)})")
    loaded = load(path)
    chosen = _detect(loaded) if format == "auto" else format
    if chosen != "table" and not loaded.is_json:
        raise InputError(f"{loaded.path}: not a {chosen} file: invalid JSON ({loaded.json_error})")
    log = Log(loaded.path)
    labels = read_label_map(label_map, log.problems) if label_map is not None else None
    if labels is not None and chosen != "youcook2":
        log.problem(None, f"the label map names YouCook2 recipe types; ignored for {chosen}")
    videos = _read(chosen, loaded, log, labels)
    return StepsImport(videos, log.problems, chosen, log.notes, dict(log.note_kinds), format == "auto")


def _read(chosen: str, loaded: Loaded, log: Log, labels: dict[str, str] | None) -> list[VideoInfo]:
    if chosen == "youcook2":
        return read_youcook2(loaded.data, log, labels)
    if chosen == "hirest":
        return read_hirest(loaded.data, log)
    if chosen == "goalstep":
        return read_goalstep(loaded.data, log)
    if chosen == "keystep":
        return read_keystep(loaded.data, log)
    return read_table(loaded, log)


def video_record(info: VideoInfo) -> dict[str, Any]:
    """The JSON record of a video or clip: video_id, theme, duration, start, end and steps first
    (each step: start, end, text, level, children, then the rest), other fields after."""
    dumped = info.model_dump(mode="json")
    head = {key: dumped.pop(key) for key in ("video_id", "theme", "duration", "start", "end")}
    dumped.pop("steps")
    return {**head, "steps": [_step_record(step) for step in info.steps], **dumped}


def _step_record(step: Any) -> dict[str, Any]:
    dumped = step.model_dump(mode="json", exclude={"children"})
    head = {key: dumped.pop(key) for key in ("start", "end", "text", "level")}
    return {**head, "children": [_step_record(child) for child in step.children], **dumped}


@dataclass
class StepsListing:
    """What `vqakit steps` shows: the videos (or clips) and the counts behind the summary."""

    imported: StepsImport
    items: list[VideoInfo]
    trimmed: bool = False
    clips: int = 0
    clipped_videos: int = 0
    tail_steps: int = 0
    tail_videos: int = 0
    without_clip: int = 0
    problems: list[str] = field(default_factory=list)

    def jsonl(self) -> Iterator[str]:
        for info in self.items:
            yield json.dumps(video_record(info), ensure_ascii=False)

    def summary(self) -> list[str]:
        found = self.imported
        videos = found.videos
        how = "detected" if found.detected else "given"
        steps = sum(len(info.flat_steps()) for info in videos)
        top = sum(len(info.steps) for info in videos)
        lines = [
            f"format: {found.format} ({how})",
            f"videos: {len(videos)}; steps: {steps} ({top} top-level)",
        ]
        if self.trimmed:
            lines.append(
                f"clips: {self.clips} from {self.clipped_videos} trimmed video(s); tails left out: "
                f"{self.tail_steps} step(s) in {self.tail_videos} video(s); "
                f"{self.without_clip} video(s) made no clip"
            )
        missing = Counter(item for info in videos for item in info.missing)
        if missing:
            lines.append(
                "missing: " + "; ".join(f"{what} in {n} video(s)" for what, n in sorted(missing.items()))
            )
        if found.note_kinds:
            lines.append(
                "notes: " + "; ".join(f"{kind}: {n}" for kind, n in sorted(found.note_kinds.items()))
            )
        problems = found.problems + self.problems
        lines.append(f"problems: {len(problems)}")
        lines.extend(f"  {problem}" for problem in problems)
        return lines


def list_steps(
    path: str | Path, format: str = "auto", *, trim: bool = False, label_map: str | Path | None = None
) -> StepsListing:
    """The videos of an annotation file, or with `trim` their clips (Goal-Step and keystep videos
    are trimmed, the others listed whole), ready to print."""
    found = read_steps(path, format, label_map=label_map)
    listing = StepsListing(found, list(found.videos), trimmed=trim)
    if not trim:
        return listing
    listing.items = []
    for info in found.videos:
        if not needs_trimming(info):
            if info.source in TRIMMED_SOURCES and info.steps:
                listing.problems.append(f"{path}: record {info.video_id}: steps without times; not trimmed")
            listing.items.append(info)
            continue
        cut = split_video(info)
        listing.items.extend(cut.clips)
        listing.clips += len(cut.clips)
        listing.clipped_videos += bool(cut.clips)
        listing.without_clip += not cut.clips
        listing.tail_steps += len(cut.tail)
        listing.tail_videos += bool(cut.tail)
    return listing


__all__ = [
    "FORMATS",
    "StepsImport",
    "StepsListing",
    "detect_format",
    "list_steps",
    "read_label_map",
    "read_steps",
    "video_record",
]
