"""The one form every step-annotation format is read into ("video info"): a video (or a trimmed
clip of it) with its theme and its timestamped steps, nested, in absolute seconds of the video.

This is what `vqakit steps` prints (one JSON object per line) and what the QA generator reads.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Source = Literal["youcook2", "hirest", "goalstep", "keystep", "table"]
Perspective = Literal["third", "first"]

PERSPECTIVE: dict[str, Perspective] = {  # the paper's split of the four datasets
    "youcook2": "third",
    "hirest": "third",
    "goalstep": "first",
    "keystep": "first",
}


class Step(BaseModel):
    """One annotated step: `level` 0 is a top-level step, 1 a substep, 2 a sub-substep."""

    model_config = ConfigDict(extra="forbid")

    start: float | None  # seconds of the video; None where the file gives no time (test splits)
    end: float | None
    text: str
    level: int = Field(0, ge=0)
    category: str | None = None  # step category / step id, when the format has one (trimming counts it)
    extra: dict[str, Any] = Field(default_factory=dict)  # format fields kept as given (is_relevant, ...)
    children: list[Step] = Field(default_factory=list)


class VideoInfo(BaseModel):
    """A video, or a clip of it (`start`/`end` inside the video), with its steps in time order."""

    model_config = ConfigDict(extra="forbid")

    video_id: str
    clip_id: str | None = None  # set for a trimmed clip: "<video_id>@<start>-<end>"
    source: Source
    perspective: Perspective = "third"  # when not given: the dataset's (PERSPECTIVE), else third
    theme: str  # the recipe, goal, task or query the video is about
    duration: float | None  # of the whole video, seconds
    start: float | None = None  # of the clip, seconds of the video (None: the whole video)
    end: float | None = None
    steps: list[Step] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)  # what the file lacks ("step times", "steps", ...)
    extra: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _dataset_perspective(cls, value: Any) -> Any:
        if (
            isinstance(value, dict)
            and value.get("perspective") is None
            and value.get("source") in PERSPECTIVE
        ):
            return {**value, "perspective": PERSPECTIVE[value["source"]]}
        return value

    @property
    def id(self) -> str:
        return self.clip_id or self.video_id

    def flat_steps(self) -> list[Step]:
        """Every step, substeps after their parent, depth first."""
        found: list[Step] = []

        def walk(steps: list[Step]) -> None:
            for step in steps:
                found.append(step)
                walk(step.children)

        walk(self.steps)
        return found
