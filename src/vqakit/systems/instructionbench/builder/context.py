"""The settings of an InstructionBench build and what every stage works with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from vqakit.builders import ModelSteps, StageLog

Granularity = Literal["coarse", "fine"]
GRANULARITIES: tuple[Granularity, ...] = ("coarse", "fine")


@dataclass(frozen=True)
class InstructionBenchBuildConfig:
    granularities: tuple[Granularity, ...] = GRANULARITIES
    annotation_format: str = "auto"  # one of the importers' formats, or "auto" (detected per file)
    label_map: Path | None = None  # YouCook2 recipe-type codes -> names
    generation_attempts: int = 3  # rounds a clip's generation may take to satisfy the wording rules
    mcq_attempts: int = 10  # the paper gives up on a question's options after 10 designs
    similarity: float = 0.9  # two options at least this similar (embeddings) are duplicates
    seed: int = 0
    name: str = "instructionbench-build"
    license: str = "questions: CC-BY-4.0; videos and step annotations keep their own licenses"


@dataclass
class BuildContext:
    """The models, journaled steps and stage log shared by the stage functions.

    `llm` writes questions, runs the four filters and writes distractors; `checkers` are the
    three models of the MCQ checks; `embedder` (may be None) has `embed(texts)`; all models have
    the async `complete` of `vqakit.models.Model`.
    """

    config: InstructionBenchBuildConfig
    llm: Any
    checkers: list[Any]
    embedder: Any
    steps: ModelSteps
    log: StageLog
    folder: Path  # the build's own folder (`OUT/build`)
