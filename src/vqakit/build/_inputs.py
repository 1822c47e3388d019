"""Builder inputs: a folder of videos, an event/sound annotation file and a passage file.

Events (JSONL, one annotation per line):
    {"video": "bike_01.mp4", "time_s": 12.4, "text": "C picks up the wrench from the table"}
    {"video": "bike_01.mp4", "time_s": 13.0, "text": "metal clinks", "kind": "sound"}
`video` is a path relative to the videos folder; `kind` is "event" (default; an action of the
camera wearer or someone else, the material of questions) or "sound".

Passages (JSONL): {"id": "...", "text": "...", "title"?: "...", "source"?: "..."} as in a
benchmark's corpus/passages.jsonl.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vqakit.schema import Passage

VIDEO_SUFFIXES = (".mp4", ".mkv", ".mov", ".webm", ".avi")


class InputError(ValueError):
    """A builder input is unusable; the message names the file and line."""


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    video: str = Field(min_length=1)
    time_s: float = Field(ge=0)
    text: str = Field(min_length=1)
    kind: Literal["event", "sound"] = "event"


def _records(path: Path, schema: type[BaseModel]) -> list:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error})") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(schema.model_validate(json.loads(line)))
        except json.JSONDecodeError as error:
            raise InputError(f"{path}:{number}: invalid JSON ({error.msg})") from None
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "line"
            raise InputError(f"{path}:{number}: {field}: {first['msg']}") from None
    return records


def read_events(path: str | Path, videos: dict[str, Path]) -> list[Event]:
    """Events sorted by video and time; an event naming an unknown video is an error."""
    path = Path(path)
    events = _records(path, Event)
    for number, event in enumerate(events, start=1):
        if event.video not in videos:
            raise InputError(
                f"{path}: event {number} ({event.text!r}) names video {event.video!r}, which is not in the "
                f"videos folder"
            )
    if not events:
        raise InputError(f"{path}: no events")
    return sorted(events, key=lambda e: (e.video, e.time_s))


def read_passages(path: str | Path) -> list[Passage]:
    path = Path(path)
    passages = _records(path, Passage)
    seen: set[str] = set()
    for passage in passages:
        if passage.id in seen:
            raise InputError(f"{path}: passage id {passage.id!r} appears twice")
        seen.add(passage.id)
    return passages


def list_videos(folder: str | Path) -> dict[str, Path]:
    """{path relative to the folder: file} for every video file under `folder`."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of videos")
    found = {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.suffix.lower() in VIDEO_SUFFIXES
    }
    if not found:
        raise InputError(f"{folder}: no video files ({', '.join(VIDEO_SUFFIXES)})")
    return found
