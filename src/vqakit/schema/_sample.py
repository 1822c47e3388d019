"""One benchmark question and everything attached to it.

A `Sample` is one line of `samples.jsonl`. Paths are relative to the benchmark folder and may
not leave it. Times are seconds from the first frame of the referenced video (or of the
referenced window's video, never of the window: windows only restrict what a method sees).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from vqakit.schema._trace import TraceStep, parse_trace

OBJECT_ID = re.compile(r"^.+-[0-9a-f]{16}$")

MAX_CHOICES = 26
"""Options of an MCQ are lettered A..Z, so an MCQ has 2 to 26 choices."""


def _not_bool(value: Any) -> Any:
    # JSON true/false would otherwise pass as 1/0 (bool is an int in Python)
    if isinstance(value, bool):
        raise ValueError(f"must be a number, not {str(value).lower()}")
    return value


NonEmpty = Annotated[str, Field(min_length=1)]
Int = Annotated[int, BeforeValidator(_not_bool)]
Number = Annotated[float, BeforeValidator(_not_bool), Field(allow_inf_nan=False)]
Seconds = Annotated[float, BeforeValidator(_not_bool), Field(ge=0, allow_inf_nan=False)]
Hop = Annotated[Literal[1, 2], BeforeValidator(_not_bool)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class VideoRef(_Strict):
    """A video file, optionally restricted to the window [start_s, end_s)."""

    path: NonEmpty
    start_s: Seconds | None = None
    end_s: Seconds | None = None

    @model_validator(mode="after")
    def _window_order(self) -> VideoRef:
        if self.start_s is not None and self.end_s is not None and self.start_s >= self.end_s:
            raise ValueError(f"start_s: start ({self.start_s}) must be before end_s ({self.end_s})")
        return self


class TrackPoint(_Strict):
    """Where an object is at one moment: a box (pixels of the displayed frame) and/or a mask."""

    time_s: Seconds
    box: tuple[Number, Number, Number, Number] | None = None  # x0, y0, x1, y1
    mask: NonEmpty | None = None  # path to a PNG, non-zero pixels are the object

    @model_validator(mode="after")
    def _has_location(self) -> TrackPoint:
        if self.box is None and self.mask is None:
            raise ValueError("box: a track point needs a box or a mask")
        if self.box is not None and not (self.box[0] < self.box[2] and self.box[1] < self.box[3]):
            raise ValueError(f"box: {list(self.box)} must be [x0, y0, x1, y1] with x0 < x1 and y0 < y1")
        return self


class ObjectTrack(_Strict):
    """One physical object across a video, at sparse moments (e.g. first and last frame of
    each movement); methods interpolate between points."""

    id: NonEmpty  # "knife-2c3afc468fb10cb2": name, dash, 16 hex digits
    label: NonEmpty  # class name drawn or written next to the object: "knife"
    video: Int = Field(0, ge=0)  # index into Sample.videos
    points: list[TrackPoint] = Field(min_length=1)

    @model_validator(mode="after")
    def _id_and_order(self) -> ObjectTrack:
        if not OBJECT_ID.match(self.id):
            raise ValueError(f"id: {self.id!r} must look like name-<16 lowercase hex digits>")
        times = [point.time_s for point in self.points]
        if times != sorted(times):
            raise ValueError("points: track points must be in time order")
        return self


class Metadata(BaseModel):
    """Grouping keys. The named ones are shared across benchmarks; any other key is kept."""

    model_config = ConfigDict(extra="allow", frozen=True)

    category: str | None = None  # question category / type
    skills: list[str] = Field(default_factory=list)  # abilities the question needs (Minerva-Ego: 2 or more)
    hop: Hop | None = None  # EgoFact: 1-hop (video) or 2-hop (video + passage)
    grounding: Literal["local", "temporal"] | None = None  # EgoFact: one event, or before/after
    modality: str | None = None  # what the answer needs: "visual", "subtitles", "passages", ...


class Sample(_Strict):
    """A question over one or more videos; MCQ when `choices` is set, open-ended otherwise."""

    id: NonEmpty
    question: NonEmpty
    # empty only when the video must be retrieved (gold_clips)
    videos: list[VideoRef] = Field(default_factory=list)
    choices: list[NonEmpty] | None = None
    # index into choices (MCQ) or reference answer text (open-ended); null when the answer is
    # hidden (a test split scored by submission): the sample is run but never scored
    answer: int | NonEmpty | None
    metadata: Metadata = Field(default_factory=Metadata)
    subtitles: NonEmpty | None = None  # .srt / .vtt for videos[0]
    facts: list[NonEmpty] = Field(default_factory=list)  # atomic facts a good open-ended answer states
    reasoning: NonEmpty | None = None  # reference reasoning trace (numbered steps)
    objects: list[ObjectTrack] = Field(default_factory=list)  # tracks of objects the trace names
    gold_clips: list[NonEmpty] = Field(default_factory=list)  # ids in corpus/clips.jsonl
    gold_passages: list[NonEmpty] = Field(default_factory=list)  # ids in corpus/passages.jsonl

    @property
    def is_mcq(self) -> bool:
        return self.choices is not None

    @property
    def answer_hidden(self) -> bool:
        """The benchmark withholds this sample's answer (a test split scored by submission)."""
        return self.answer is None

    def trace_steps(self) -> list[TraceStep]:
        return parse_trace(self.reasoning) if self.reasoning else []

    def answer_text(self) -> str | None:
        """The reference answer as text; None when it is hidden."""
        if self.answer is None:
            return None
        if self.choices is not None and isinstance(self.answer, int):
            return self.choices[self.answer]
        return str(self.answer)

    @model_validator(mode="before")
    @classmethod
    def _answer_kind(cls, data: Any) -> Any:
        # Decide int-vs-text by the presence of choices, so that "3" never becomes index 3.
        if not isinstance(data, dict):
            return data
        answer = data.get("answer")
        if isinstance(answer, bool):
            raise ValueError(
                f"answer: {str(answer).lower()} is not an answer: give a 0-based choice index (MCQ) or text"
            )
        if data.get("choices") is None and isinstance(answer, int):
            raise ValueError("answer: an open-ended question (no choices) needs the reference answer as text")
        return data

    @model_validator(mode="after")
    def _mcq_consistency(self) -> Sample:
        if self.choices is None:
            return self
        if len(self.choices) < 2:
            raise ValueError(f"choices: an MCQ needs at least 2 choices, got {len(self.choices)}")
        if len(self.choices) > MAX_CHOICES:
            count = len(self.choices)
            raise ValueError(f"choices: an MCQ has at most {MAX_CHOICES} choices (A to Z), got {count}")
        if self.answer is None:
            pass
        elif not isinstance(self.answer, int) or isinstance(self.answer, bool):
            raise ValueError(f"answer: with choices, the answer is a 0-based index, got {self.answer!r}")
        elif not 0 <= self.answer < len(self.choices):
            raise ValueError(f"answer: index {self.answer} is out of range for {len(self.choices)} choices")
        if len(set(self.choices)) != len(self.choices):
            raise ValueError("choices: two choices have the same text")
        return self
