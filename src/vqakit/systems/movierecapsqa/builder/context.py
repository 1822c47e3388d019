"""The settings of a MovieRecapsQA build, what each stage passes on, and what every stage works
with (models, journaled steps, stage log)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.builders import ModelSteps, StageLog
from vqakit.video import Cue


@dataclass(frozen=True)
class RecapsBuildConfig:
    """Every knob of a build. Segment lengths follow the paper (segments of about 73 s)."""

    min_segment_s: float = 60.0  # scenes join until a segment is at least this long
    max_segment_s: float = 150.0  # a single scene longer than this is cut into equal parts
    detector: str = "content"  # PySceneDetect detector for the recap's shots
    threshold: float | None = None  # its threshold (None: PySceneDetect's default)
    merge_distance: float | None = None  # shot-merging distance (None: `merge_shots`' default)
    min_coverage: float = 0.3  # share of a segment the alignment must cover to give it movie times
    questions_per_segment: int = 6  # asked of the QA writer; extra pairs are dropped
    description_frames: int = 4  # frames of a segment the VLM sees for its scene description
    frame_short_side: int = 336
    name: str = "movierecapsqa-build"

    def __post_init__(self) -> None:
        if not 0 < self.min_segment_s <= self.max_segment_s:
            raise ValueError("segment lengths need 0 < min_segment_s <= max_segment_s")
        if self.questions_per_segment < 1 or self.description_frames < 1:
            raise ValueError("questions_per_segment and description_frames must be at least 1")


@dataclass(frozen=True)
class RecapInput:
    """One recap to build from (a manifest row); paths are absolute."""

    video_id: str
    movie_name: str
    recap: Path
    recap_subtitles: Path
    movie: Path | None = None
    movie_subtitles: Path | None = None
    imdb_url: str | None = None
    subtitle_url: str | None = None


@dataclass
class Fact:
    number: int  # 1-based within its segment, as the QA writer sees it
    text: str
    fact_id: int | None = None  # the release's id across the build, given at output


@dataclass
class RecapSegment:
    """A recap segment: its window in the recap video, the transcript cues whose middle falls in
    it, its movie window once aligned, and its kept facts."""

    recap: RecapInput
    number: int  # segment_id: the segment's number within its recap, from 0
    start_s: float
    end_s: float
    cues: list[Cue]
    movie_window: tuple[float, float] | None = None
    facts: list[Fact] = field(default_factory=list)

    @property
    def id(self) -> str:
        """`video_id.segment_id`: the journal item and drop-log id of the segment."""
        return f"{self.recap.video_id}.{self.number}"

    def narration(self) -> list[str]:
        return [" ".join(cue.text.split()) for cue in self.cues if cue.text.strip()]


@dataclass
class QA:
    """A question through the stages: written from `fact_numbers` of its segment (stage 4),
    simplified (stage 5), labelled (stage 6). `number` is its question_id within the segment."""

    segment: RecapSegment
    number: int
    verbose_question: str
    verbose_answer: str
    fact_numbers: list[int]
    question: str | None = None
    answer: str | None = None
    vague_answer: str | None = None
    category: str | None = None
    modality: str | None = None

    @property
    def key(self) -> str:
        """`video_id.segment_id.question_id`: the sample id the import gives the question."""
        return f"{self.segment.id}.{self.number}"


@dataclass
class BuildContext:
    """What the stage functions share. `llm` writes facts and questions, simplifies and labels;
    `vlm` (may be None) describes scenes for the labels; `embedder` (may be None without movies)
    has `embed_images` for alignment and shot merging."""

    config: RecapsBuildConfig
    llm: Any
    vlm: Any
    embedder: Any
    steps: ModelSteps
    log: StageLog
    folder: Path  # the build's own folder (`OUT/build`)
