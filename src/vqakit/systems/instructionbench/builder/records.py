"""What the stages of an InstructionBench build pass on: clips with their video window, and
questions with what each stage found about them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vqakit.systems.instructionbench.video_info import VideoInfo


@dataclass
class Clip:
    """A trimmed clip or a whole annotated video, placed in its video file.

    `info` is what the question writer reads; `video` is the file's path relative to the videos
    folder (`media/<video>` in the benchmark); `[start_s, end_s)` is the window the questions are
    about, inside the file.
    """

    info: VideoInfo
    video: str
    start_s: float
    end_s: float
    cut: bool = False  # the window was cut at the end of the video file

    @property
    def id(self) -> str:
        return self.info.id

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


@dataclass
class Question:
    """A generated question-answer pair (`qa`, the generator's record) and what the later stages
    made of it: the filters' judgements, and the five options with the gold one's index."""

    id: str
    qa: Any
    clip: Clip
    granularity: str
    judgements: list[Any] = field(default_factory=list)
    options: list[str] | None = None  # set by the MCQ stage (the gold one first, until letters)
    answer_index: int | None = None  # set by the letters stage
    mcq_attempts: int = 0
