"""The benchmark card: `benchmark.yaml` at the root of a benchmark folder."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from vqakit.schema._official import OfficialTable
from vqakit.schema._sample import Int, NonEmpty
from vqakit.schema._spec import check_sampling_text

# The name becomes part of folder names (run folders, the retrieval index in the cache), so it
# may not hold a path separator, a control character or start with a dot.
_NAME = re.compile(r"[^./\\\x00-\x1f\x7f][^/\\\x00-\x1f\x7f]{0,99}")


class Protocol(BaseModel):
    """How the benchmark is run by default; every value can be overridden per run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    frames: NonEmpty = "uniform:16"  # frame sampling spec (vqakit.video.parse_sampling)
    short_side: Int | None = Field(448, ge=16)  # shrink frames so the short side has at most this many px
    upscale: bool = False  # also enlarge smaller frames to short_side (never by default)
    method: NonEmpty = "direct"  # how a sample becomes a prediction
    prompt: NonEmpty = "mcq"  # prompt template name
    scorer: NonEmpty = "accuracy"  # how predictions are scored
    subtitles: bool = False  # include subtitle cues of the sampled window in the prompt
    min_group_size: Int = Field(1, ge=1)  # breakdown rows with fewer samples are left out (Minerva-Ego: 50)
    # what a model is shown of the video: sampled frames, or the video itself where the backend
    # takes video (the window cut and re-encoded, or the file with offsets)
    input: Literal["frames", "video"] = "frames"

    @field_validator("frames")
    @classmethod
    def _frames_parse(cls, value: str) -> str:
        check_sampling_text(value)
        return value


class Source(BaseModel):
    """Attribution for media or text the benchmark ships."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    files: list[NonEmpty]
    origin: NonEmpty
    license: NonEmpty


class ReviewRecord(BaseModel):
    """How a reviewed version was made from its source (`vqakit review apply`); every drop and
    edit, with who made it and why, is listed in the file `changes` beside the card."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: NonEmpty  # "name version", the version the decisions were made on
    source_hash: NonEmpty  # its content hash (`vqakit.runner.benchmark_hash`)
    policy: Literal["all", "any", "majority"]
    reviewers: list[NonEmpty]
    reviewed: Int = Field(ge=0)  # samples with at least one decision
    kept: Int = Field(ge=0)  # samples of this version (edited ones included)
    edited: Int = Field(ge=0)
    dropped: Int = Field(ge=0)
    changes: NonEmpty = "changes.md"
    date: NonEmpty  # ISO 8601


class BenchmarkCard(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: NonEmpty
    version: NonEmpty
    license: NonEmpty  # license of the annotations
    description: NonEmpty
    homepage: str | None = None
    citation: str | None = None
    protocol: Protocol = Protocol()
    sources: list[Source] = []  # attribution of shipped media / passages
    fields: dict[str, str] = {}  # documentation of benchmark-specific metadata keys
    # media/ holds symbolic links to absolute paths outside the folder (`--link-media`); only
    # then does a media check follow such a link instead of refusing it
    linked_media: bool = False
    # people answering in `vqakit studio` may watch the sample's video window, not only the frames
    # the protocol sends (a card setting, not part of the protocol a run records)
    human_video: bool = False
    review: ReviewRecord | None = None  # set on a version written by `vqakit review apply`
    groups: list[NonEmpty] = []  # metadata keys broken down in every run, beyond the default groups
    # the benchmark's own results table (columns, merges, headline): `vqakit table` prints it
    official: OfficialTable | None = None
    split: str | None = None  # the release's split the samples come from (set by the importers)

    @field_validator("name")
    @classmethod
    def _name_is_a_file_name(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(
                f"{value!r} cannot be part of a folder name: use at most 100 characters, no '/', "
                "'\\' or control characters, not starting with '.'"
            )
        return value
