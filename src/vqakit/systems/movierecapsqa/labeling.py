"""Labels on a benchmark folder: classify the questions of an imported release (`vqakit label
movierecapsqa`), or apply labels already made (the builder's `tables/labels.json`).

Labelling works in place: the model steps are journaled in `BENCH/labels/calls.jsonl` (a rerun
asks nothing already answered), questions left without labels are listed with the reason in
`BENCH/labels/drops.jsonl`, every label of the folder is written to `BENCH/labels/labels.json`,
and `samples.jsonl` is replaced atomically only after every rewritten sample validates. A
segment's context is its movie dialogue (the movie subtitles of the aligned movie segment,
what the settings show too) and, with a VLM, a description of frames of the recap segment (or
of the movie segment when the recap video is missing); see `classify.py`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.builders import BuildJournal, ModelSteps, StageLog, write_stage_report
from vqakit.files import read_table, read_yaml, write_text_atomic
from vqakit.schema import CARD, SAMPLES, Sample, Uniform, load_folder
from vqakit.systems.movierecapsqa.classify import (
    LABELS_FILE,
    LabelQuestion,
    Labels,
    SegmentContext,
    label_segment,
    write_labels,
)
from vqakit.systems.movierecapsqa.inputs import (
    InputMissing,
    dialogue_lines,
    is_movierecaps_sample,
    release_fields,
    segment_dialogue,
    setting_video,
)
from vqakit.video import Resize, VideoError, sample_frames

FOLDER = "labels"
STAGE = "classify"
MOVIE_DIALOGUE = "movie subtitles of the aligned movie segment"
FIELDS = {
    "category": "question category: TEMP, CRD, NPA, STA or TH (classified; the release has none)",
    "modality": "what answering needs: dialogue, scene or multimodal (classified)",
}


@dataclass
class ApplyReport:
    labelled: int = 0
    unmatched: list[str] = field(default_factory=list)  # label keys no sample has


def apply_labels(folder: str | Path, labels: dict[str, Labels]) -> ApplyReport:
    """Set `metadata.category` and `metadata.modality` of the samples whose id has labels;
    validate, then replace `samples.jsonl` (and document the fields in the card) atomically."""
    import yaml

    folder = Path(folder)
    load_folder(folder)  # a folder with problems is refused (BenchmarkError listing them) first
    report, seen, records = ApplyReport(), set(), []
    for line in read_table(folder / SAMPLES, "jsonl").rows:
        record = dict(line.data or {})
        found = labels.get(str(record.get("id")))
        if found is not None:
            record["metadata"] = {
                **record.get("metadata", {}),
                "category": found.category,
                "modality": found.modality,
            }
            Sample.model_validate(record)
            report.labelled += 1
            seen.add(record["id"])
        records.append(record)
    report.unmatched = [key for key in labels if key not in seen]
    text = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    card = read_yaml(folder / CARD)
    card["fields"] = {**(card.get("fields") or {}), **FIELDS}
    write_text_atomic(folder / SAMPLES, text)
    write_text_atomic(folder / CARD, yaml.safe_dump(card, sort_keys=False, allow_unicode=True))
    load_folder(folder)
    return report


def _frames_of(sample: Sample, root: Path, count: int, short_side: int) -> Callable[[], list[Any]] | None:
    for setting in ("recap-segment", "movie-segment"):
        try:
            ref = setting_video(sample, setting)
        except InputMissing:
            continue
        spec = Uniform(count, ref.start_s, ref.end_s)
        return lambda: [
            f.image for f in sample_frames(root / ref.path, spec, resize=Resize(short_side=short_side))
        ]
    return None


def _item(sample: Sample) -> str:
    """`video_id.segment_id`: the questions of one segment are labelled together."""
    fields = release_fields(sample)
    return f"{fields.get('video_id')}.{fields.get('segment_id')}"


def _context(sample: Sample, root: Path) -> SegmentContext:
    fields = release_fields(sample)
    try:
        dialogue, source = dialogue_lines(segment_dialogue(sample, root)), MOVIE_DIALOGUE
    except InputMissing:
        dialogue, source = [], ""
    return SegmentContext(
        item=_item(sample),
        movie_name=str(fields.get("movie_name") or fields.get("video_id")),
        dialogue=dialogue,
        dialogue_source=source,
        facts=list(fields.get("segment_facts") or []),
    )


@dataclass
class LabelOutcome:
    folder: Path
    labelled: int  # questions labelled by this run
    kept: int  # questions that already had both labels (left as they were)
    unlabelled: dict[str, str]  # question -> why it got no labels
    text_only: int  # segments labelled without a scene description (no VLM, or no video)
    reused_calls: int
    labels_file: Path
    drops_file: Path | None = None  # every unlabelled question with its reason


def label_benchmark(
    folder: str | Path,
    *,
    llm: Any,
    vlm: Any = None,
    relabel: bool = False,
    frames: int = 4,
    short_side: int = 336,
    on_step: Callable[[int, int], None] | None = None,
) -> LabelOutcome:
    """Label the MovieRecapsQA questions of a benchmark folder in place (see the module
    docstring); questions that have both labels keep them unless `relabel`."""
    folder = Path(folder)
    bench = load_folder(folder)
    ours = [sample for sample in bench.samples if is_movierecaps_sample(sample)]
    if not ours:
        raise ValueError(
            f"{folder}: no MovieRecapsQA samples (write them with `vqakit import movierecapsqa`)"
        )
    todo = [s for s in ours if relabel or not (s.metadata.category and s.metadata.modality)]
    groups: dict[str, list[Sample]] = {}
    for sample in todo:
        groups.setdefault(_item(sample), []).append(sample)
    work = folder / FOLDER
    journal = BuildJournal(work)
    log, steps = StageLog(work), ModelSteps(journal, on_step)
    text_only = 0

    async def one(members: list[Sample]) -> tuple[dict[str, Labels], dict[str, str]]:
        nonlocal text_only
        context = _context(members[0], folder)
        shown = _frames_of(members[0], folder, frames, short_side) if vlm is not None else None
        text_only += shown is None
        questions = [
            LabelQuestion(s.id, s.question, s.answer if isinstance(s.answer, str) else None) for s in members
        ]
        try:
            result = await label_segment(steps, llm, vlm, context, questions, shown)
        except VideoError as error:
            return {}, {q.key: f"unreadable video: {error}" for q in questions}
        return result.labels, result.unlabelled

    async def run() -> list[tuple[dict[str, Labels], dict[str, str]]]:
        try:
            return await asyncio.gather(*(one(members) for members in groups.values()))
        finally:
            for model in {id(m): m for m in (llm, vlm) if m is not None}.values():
                if hasattr(model, "aclose"):
                    await model.aclose()

    new: dict[str, Labels] = {}
    unlabelled: dict[str, str] = {}
    for labels, missing in asyncio.run(run()):
        new.update(labels)
        unlabelled.update(missing)
    for key, why in unlabelled.items():
        log.drop(STAGE, key, why)
    log.close(STAGE, "questions", len(todo), len(new))
    if text_only:
        log.note(f"{text_only} segment(s) labelled without a scene description (no VLM, or no video found)")
    existing = {
        s.id: Labels(s.metadata.category, s.metadata.modality)
        for s in ours
        if s.metadata.category and s.metadata.modality
    }
    labels_file = write_labels(work / LABELS_FILE, {**existing, **new})  # a failed relabel keeps the old
    apply_labels(folder, new)
    write_stage_report(work, "MovieRecapsQA labels", log, journal.reused)
    kept = len(ours) - len(todo)
    return LabelOutcome(
        folder, len(new), kept, unlabelled, text_only, journal.reused, labels_file, log.drops.path
    )


def label_benchmark_from_specs(
    folder: str | Path,
    *,
    llm: str,
    vlm: str | None = None,
    concurrency: int = 8,
    **options: Any,
) -> LabelOutcome:
    """`label_benchmark` with models named by spec strings (`vqakit label movierecapsqa`)."""
    from vqakit.models import Model

    text_model = Model(llm, concurrency=concurrency)
    vision = None if vlm is None else (text_model if vlm == llm else Model(vlm, concurrency=concurrency))
    return label_benchmark(folder, llm=text_model, vlm=vision, **options)
