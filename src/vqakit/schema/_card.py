"""The benchmark card: `benchmark.yaml` at the root of a benchmark folder."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from vqakit.schema._sample import Int, NonEmpty
from vqakit.schema._spec import check_sampling_text

# The name becomes part of folder names (run folders, the retrieval index in the cache), so it
# may not hold a path separator, a control character or start with a dot.
_NAME = re.compile(r"[^./\\\x00-\x1f\x7f][^/\\\x00-\x1f\x7f]{0,99}")


class Protocol(BaseModel):
    """How the benchmark is run by default; every value can be overridden per run."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    frames: NonEmpty = "uniform:16"  # frame sampling spec (vqakit.video.parse_sampling)
    short_side: Int | None = Field(448, ge=16)  # resize frames so the short side has this many px
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
    groups: list[NonEmpty] = []  # metadata keys broken down in every run, beyond the default groups

    @field_validator("name")
    @classmethod
    def _name_is_a_file_name(cls, value: str) -> str:
        if not _NAME.fullmatch(value):
            raise ValueError(
                f"{value!r} cannot be part of a folder name: use at most 100 characters, no '/', "
                "'\\' or control characters, not starting with '.'"
            )
        return value
