"""The settings of an EgoFact build and what every stage works with."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vqakit.builders import ModelSteps, StageLog


@dataclass(frozen=True)
class EgoFactBuildConfig:
    window_s: float = 30.0
    screenshot_every_s: float = 3.0
    keep_ratio: float = 0.2  # clusters = keep_ratio x windows (step 3)
    min_events: int = 2
    temporal_gap_s: float = 4.0
    min_quality: float = 7.0
    passage_threshold: float = 0.5
    visual_similarity: float = 0.7
    action_similarity: float = 0.8
    object_similarity: float = 0.9
    seed: int = 0
    name: str = "egofact-build"
    license: str = "questions: CC-BY-4.0; videos and passages keep their own licenses"
    screenshot_side: int = 448


@dataclass
class BuildContext:
    """The models, embedders, journaled steps and stage log shared by the stage functions.

    `llm`/`vlm` have the async `complete` of `vqakit.models.Model` (`vlm` may be None);
    `text_embedder` has `embed(texts)`, `image_embedder` (may be None) `embed_images(images)`.
    """

    config: EgoFactBuildConfig
    llm: Any
    vlm: Any
    text_embedder: Any
    image_embedder: Any
    steps: ModelSteps
    log: StageLog
    folder: Path  # the build's own folder (`OUT/build`)
