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
from vqakit.schema import Passage


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    video: str = Field(min_length=1)
    time_s: float = Field(ge=0)
    text: str = Field(min_length=1)
    kind: Literal["event", "sound"] = "event"


def read_events(path: str | Path, videos: dict[str, Path]) -> list[Event]:
    """Events sorted by video and time; an event naming an unknown video is an error."""
    path = Path(path)
    events = read_records(path, Event)
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
    passages = read_records(path, Passage)
    seen: set[str] = set()
    for passage in passages:
        if passage.id in seen:
            raise InputError(f"{path}: passage id {passage.id!r} appears twice")
        seen.add(passage.id)
    return passages
