"""EgoFact builder inputs besides the videos: an event/sound annotation file and a passage file.

Events (JSONL, one annotation per line):
    {"video": "bike_01.mp4", "time_s": 12.4, "text": "C picks up the wrench from the table"}
    {"video": "bike_01.mp4", "time_s": 13.0, "text": "metal clinks", "kind": "sound"}
`video` is a path relative to the videos folder; `kind` is "event" (default; an action of the
camera wearer or someone else, the material of questions) or "sound".

Passages (JSONL): {"id": "...", "text": "...", "title"?: "...", "source"?: "..."} as in a
benchmark's corpus/passages.jsonl.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from vqakit.builders import InputError, read_records
from vqakit.files import InputProblem
from vqakit.schema import Passage


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    video: str = Field(min_length=1)
    time_s: float = Field(ge=0)
    text: str = Field(min_length=1)
    kind: Literal["event", "sound"] = "event"


def read_events(
    path: str | Path, videos: dict[str, Path], problems: list[InputProblem] | None = None
) -> list[Event]:
    """Events sorted by video and time. A bad line, or an event naming a video that is not in
    the videos folder, is an `InputError`; with a `problems` list it is listed there and
    skipped instead. No event at all is always an error."""
    path = Path(path)
    events = []
    for number, event in enumerate(read_records(path, Event, problems), start=1):
        if event.video not in videos:
            where = f"{event.video!r} (event {event.text!r}) is not in the videos folder"
            problem = InputProblem(str(path), None, None, "video", where)
            if problems is None:
                raise InputError(
                    f"{path}: event {number} ({event.text!r}) names video {event.video!r}, "
                    "which is not in the videos folder"
                )
            problems.append(problem)
            continue
        events.append(event)
    if not events:
        raise InputError(f"{path}: no events")
    return sorted(events, key=lambda e: (e.video, e.time_s))


def read_passages(path: str | Path, problems: list[InputProblem] | None = None) -> list[Passage]:
    """Passages with unique ids; a bad line or a repeated id is an `InputError`, or with a
    `problems` list is listed there and skipped (the first passage of an id is kept)."""
    path = Path(path)
    passages = []
    seen: set[str] = set()
    for passage in read_records(path, Passage, problems):
        if passage.id in seen:
            if problems is None:
                raise InputError(f"{path}: passage id {passage.id!r} appears twice")
            problems.append(
                InputProblem(str(path), None, passage.id, "id", "appears twice; the first is kept")
            )
            continue
        seen.add(passage.id)
        passages.append(passage)
    return passages
