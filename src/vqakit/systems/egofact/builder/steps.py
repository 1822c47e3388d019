"""What each model step of the EgoFact builder must return, and the small pure helpers around it."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field, field_validator

from vqakit.systems.egofact.builder.inputs import Event


class Caption(BaseModel):
    caption: str = Field(min_length=1)


class Keyword(BaseModel):
    keyword: str = Field(min_length=1)
    weight: int = Field(ge=1, le=10)


def _video_that(value: Any) -> Any:
    if isinstance(value, str) and not value.strip().lower().startswith("a video that"):
        raise ValueError('must start with "a video that"')
    return value.strip() if isinstance(value, str) else value


class Narration(BaseModel):
    concise: str = Field(min_length=1)
    detailed: str = Field(min_length=1)
    activity: str = Field(min_length=1)
    keywords: list[Keyword] = Field(min_length=1)

    _check_concise = field_validator("concise", "detailed", mode="before")(_video_that)


class StructuredEvent(BaseModel):
    rewritten: str = Field(min_length=1)
    agent: str = Field(min_length=1)
    action: str = Field(min_length=1)
    action_phrase: str = Field(min_length=1)
    patient: str | None = None
    patient_canonical: str | None = None
    patient_location: str | None = None
    patient_destination: str | None = None
    instrument: str | None = None
    event_location: str | None = None
    location_phrase: str | None = None

    @field_validator("patient", "patient_canonical", "location_phrase", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("", "null", "none", "n/a"):
            return None
        return value.strip() if isinstance(value, str) else value


class Distractors(BaseModel):
    options: list[str] = Field(min_length=6, max_length=6)
    reasoning: str = ""
    score: float = Field(ge=0, le=10)


class Statements(BaseModel):
    factual: str = Field(min_length=1)
    counterfactual: list[str] = Field(min_length=3, max_length=3)


@dataclass
class Window:
    """One fixed-length window of a source video: a candidate corpus clip."""

    id: str
    video: str  # path relative to the videos folder (and to media/ in the output)
    start_s: float
    end_s: float
    events: list[Event] = field(default_factory=list)
    sounds: list[Event] = field(default_factory=list)
    captions: list[tuple[float, str]] = field(default_factory=list)
    narration: Narration | None = None
    structured: list[tuple[Event, StructuredEvent]] = field(default_factory=list)


@dataclass
class Query:
    """One question under construction (1-hop; a 2-hop one is derived from it)."""

    id: str
    window: Window
    grounding: str  # local | temporal
    target: StructuredEvent
    target_time_s: float
    anchor: StructuredEvent | None = None
    anchor_time_s: float | None = None
    direction: str | None = None  # before | after
    question: str = ""
    stem: str = ""  # the question after the video description, for the 2-hop rewording
    answer: str = ""  # the object
    options: list[str] = field(default_factory=list)
    answer_index: int = 0
    quality: float | None = None
    hop: int = 1
    passage_id: str | None = None
    pairs: list[dict[str, Any]] = field(default_factory=list)


def clock(seconds: float) -> str:
    """`[HH:MM:SS.ss]` as used in builder timelines."""
    hours, rest = divmod(max(0.0, seconds), 3600)
    minutes, secs = divmod(rest, 60)
    return f"[{int(hours):02d}:{int(minutes):02d}:{secs:05.2f}]"


def timeline(window: Window) -> str:
    """Captions, events and sounds of a window in time order, times from the window's start."""
    lines = [(time, "Scene", text) for time, text in window.captions]
    lines += [(e.time_s - window.start_s, "Scene", e.text) for e in window.events]
    lines += [(e.time_s - window.start_s, "Sound", e.text) for e in window.sounds]
    return "\n".join(
        f"{clock(time)} ({kind}) {text}" for time, kind, text in sorted(lines, key=lambda x: x[0])
    )


def mentions(text: str, name: str) -> bool:
    """Whether `text` names the object `name` (whole words, a trailing plural s allowed)."""
    words = [re.escape(word) for word in name.lower().split()]
    if not words:
        return False
    pattern = r"\b" + r"\s+".join(words) + r"(?:s|es)?\b"
    return re.search(pattern, text.lower()) is not None


def object_question(event: StructuredEvent, statement: bool = False) -> str:
    """`what is the object that <agent> <action>[ <location>]?` (or `which statement is true about ...`)."""
    head = "which statement is true about the object that" if statement else "what is the object that"
    place = f" {event.location_phrase}" if event.location_phrase else ""
    return f"{head} {event.agent} {event.action_phrase}{place}?"


def in_video(narration: Narration) -> str:
    return "In " + narration.concise[0].lower() + narration.concise[1:]


def sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return text[:1].upper() + text[1:]
