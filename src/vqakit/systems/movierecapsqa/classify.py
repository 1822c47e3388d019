"""Question categories and modality types, the builder's last model step and the way imported
release questions get labels (the release tables carry none).

- category, one of TEMP (temporal), CRD (characters and relationships), NPA (narrative and
  plot), STA (setting and technical), TH (themes);
- modality, one of dialogue, scene, multimodal: what a viewer needs to answer.

The questions of one segment are labelled together in one journaled step
(`classify:<video_id>.<segment_id>`, prompt `mr_build_classify`), with the segment's context:
its dialogue and what the scene shows. What the scene shows is a description a VLM writes from
a strip of frames of the segment (`describe:<video_id>.<segment_id>`, `mr_build_describe`);
without a VLM the segment's facts stand in for it (they were written from the narration of the
scene, so the labels lean on text).

Labels are exchanged as `labels.json`: `{"<video_id>.<segment_id>.<question_id>": {"category":
..., "modality": ...}}`, keyed like the samples of an import.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, field_validator

from vqakit.builders import ModelSteps
from vqakit.files import find_unusable, read_json, write_text_atomic
from vqakit.prompts import render_prompt
from vqakit.systems.movierecapsqa.replies import ListReply
from vqakit.systems.movierecapsqa.summary import CATEGORIES, MODALITIES
from vqakit.video import image_strip

CLASSIFY_PROMPT, DESCRIBE_PROMPT = "mr_build_classify", "mr_build_describe"
LABELS_FILE = "labels.json"
_CATEGORY_WORDS = (  # a word of a written-out category name -> its code
    ("TEMPORAL", "TEMP"),
    ("CHARACTER", "CRD"),
    ("RELATIONSHIP", "CRD"),
    ("NARRATIVE", "NPA"),
    ("PLOT", "NPA"),
    ("SETTING", "STA"),
    ("TECHNICAL", "STA"),
    ("THEM", "TH"),
)


def normalise_category(text: str) -> str | None:
    """The category code of a reply: "crd", "CRD (Character ...)" and "Character and
    relationship dynamics" are all CRD; None when nothing fits."""
    upper = text.strip().upper()
    head = re.match(r"[A-Z]+", upper)
    if head and head[0] in CATEGORIES:
        return head[0]
    return next((code for word, code in _CATEGORY_WORDS if word in upper), None)


def normalise_modality(text: str) -> str | None:
    """dialogue, scene or multimodal ("Dialogue-based", "visual", "both" included), or None."""
    lower = text.strip().lower()
    for prefixes, name in (
        (("dialog",), "dialogue"),
        (("scene", "visual"), "scene"),
        (("multi", "both"), "multimodal"),
    ):
        if lower.startswith(prefixes):
            return name
    return None


@dataclass(frozen=True)
class Labels:
    category: str
    modality: str


@dataclass(frozen=True)
class LabelQuestion:
    """A question to label: `key` is its sample id; the answer helps tell what it needs."""

    key: str
    question: str
    answer: str | None = None


@dataclass(frozen=True)
class SegmentContext:
    """What the labeller reads about a segment besides its questions."""

    item: str  # `video_id.segment_id`: the journal item
    movie_name: str
    dialogue: Sequence[str] = ()  # one line per cue
    dialogue_source: str = ""  # what the dialogue is, e.g. "movie subtitles of the segment"
    description: str | None = None  # from the VLM
    facts: Sequence[str] = ()  # stand in for the description when there is none


class SceneDescription(BaseModel):
    description: str = Field(min_length=1)


class LabelRow(BaseModel):
    number: int
    category: str
    modality: str

    @field_validator("category", "modality", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if value is not None else value


class LabelReply(ListReply):
    """`{"labels": [{number, category, modality}, ...]}` (a bare list is accepted too)."""

    labels: list[LabelRow] = Field(min_length=1)


@dataclass
class ClassifyResult:
    """Labels by question key, and why the others got none (`error`: the step itself failed)."""

    labels: dict[str, Labels]
    unlabelled: dict[str, str]
    error: str | None = None


async def describe_scene(
    steps: ModelSteps, vlm: Any, context_item: str, movie_name: str, images: Sequence[Any]
) -> tuple[str | None, str | None]:
    """(description, None) or (None, why): the VLM describes a strip of the segment's frames."""
    prompt = render_prompt(DESCRIBE_PROMPT, movie_name=movie_name, frames=len(images))
    found, error = await steps.ask(
        vlm, "describe", context_item, prompt, SceneDescription, image=image_strip(list(images))
    )
    return (" ".join(found.description.split()), None) if found is not None else (None, error)


async def classify_questions(
    steps: ModelSteps, llm: Any, context: SegmentContext, questions: Sequence[LabelQuestion]
) -> ClassifyResult:
    """Label the questions of one segment in one step; a question the reply leaves out or
    labels with an unknown name is listed in `unlabelled` with the reason."""
    prompt = render_prompt(
        CLASSIFY_PROMPT,
        movie_name=context.movie_name,
        dialogue=list(context.dialogue),
        dialogue_source=context.dialogue_source,
        description=context.description,
        facts=list(context.facts),
        questions=[{"question": q.question, "answer": q.answer} for q in questions],
    )
    found, error = await steps.ask(llm, "classify", context.item, prompt, LabelReply)
    if found is None:
        why = f"classify step failed: {error}"
        return ClassifyResult({}, {q.key: why for q in questions}, error)
    rows: dict[int, LabelRow] = {}
    for row in found.labels:
        rows.setdefault(row.number, row)
    result = ClassifyResult({}, {})
    for number, question in enumerate(questions, start=1):
        row = rows.get(number)
        if row is None:
            result.unlabelled[question.key] = f"not classified: number {number} is missing from the reply"
            continue
        category, modality = normalise_category(row.category), normalise_modality(row.modality)
        if category is None:
            result.unlabelled[question.key] = f"unknown category: {row.category!r}"
        elif modality is None:
            result.unlabelled[question.key] = f"unknown modality: {row.modality!r}"
        else:
            result.labels[question.key] = Labels(category, modality)
    return result


async def label_segment(
    steps: ModelSteps,
    llm: Any,
    vlm: Any,
    context: SegmentContext,
    questions: Sequence[LabelQuestion],
    frames: Callable[[], list[Any]] | None = None,
) -> ClassifyResult:
    """Describe the scene (with a VLM and a way to get its frames; decoding runs in a thread),
    then label the segment's questions. Raises `VideoError` when the frames cannot be read."""
    if vlm is not None and frames is not None:
        images = await asyncio.to_thread(frames)
        description, error = await describe_scene(steps, vlm, context.item, context.movie_name, images)
        if description is None:
            why = f"describe step failed: {error}"
            return ClassifyResult({}, {q.key: why for q in questions}, error)
        context = replace(context, description=description)
    return await classify_questions(steps, llm, context, questions)


def write_labels(path: str | Path, labels: dict[str, Labels]) -> Path:
    """`labels.json`, keys in the given order."""
    text = json.dumps({key: asdict(value) for key, value in labels.items()}, indent=1, ensure_ascii=False)
    return write_text_atomic(path, text + "\n")


def read_labels(path: str | Path) -> dict[str, Labels]:
    """The labels of a `labels.json`; a label outside the known names is a ValueError naming the
    question."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object of question id -> {{category, modality}}")
    labels = {}
    for key, value in data.items():
        if found := find_unusable(value):
            raise ValueError(f"{path}: record {key}: {found[0]}: {found[1]}")
        if not isinstance(value, dict):
            raise ValueError(f"{path}: {key}: expected {{category, modality}}")
        category = normalise_category(str(value.get("category", "")))
        modality = normalise_modality(str(value.get("modality", "")))
        if category is None or modality is None:
            raise ValueError(
                f"{path}: {key}: category must be one of {', '.join(CATEGORIES)} and modality one of "
                f"{', '.join(MODALITIES)}; got {value.get('category')!r}, {value.get('modality')!r}"
            )
        labels[key] = Labels(category, modality)
    return labels
