"""The output of a build: the release's four tables (`OUT/tables/`), the labels beside them, and
the benchmark folder made from the tables by the importer itself, so that the folder is exactly
what `vqakit import movierecapsqa OUT/tables ...` gives (plus the labels).

Ids follow the release: `segment_id` is the segment's number within its recap and `question_id`
the question's number within its segment (both from 0, kept when a later stage drops a
neighbour), `fact_id` a number across the build (from 1, in recap, segment and fact order). Only
segments that kept a question are written, with all their facts; `labels.json` holds each
question's category and modality, keyed `video_id.segment_id.question_id` (the release tables
have no column for them). The importer finds the media through `build/media/*.csv`.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from pathlib import Path

import yaml

from vqakit.files import write_text_atomic
from vqakit.schema import CARD
from vqakit.systems.movierecapsqa.builder.context import QA, RecapInput, RecapsBuildConfig, RecapSegment
from vqakit.systems.movierecapsqa.classify import LABELS_FILE, Labels, write_labels
from vqakit.systems.movierecapsqa.importer import ImportReport, import_movierecapsqa
from vqakit.systems.movierecapsqa.labeling import apply_labels
from vqakit.systems.movierecapsqa.tables import Fact, Question, Recap, ReleaseTables, Segment, write_tables

TABLES = "tables"
MEDIA = "media"
WRITER = "build movierecapsqa"  # the command, as the output folder's marker records it


def release_tables(questions: list[QA]) -> ReleaseTables:
    """The four tables of the kept questions (fact ids are given here)."""
    segments: dict[str, RecapSegment] = {}
    for qa in questions:
        segments.setdefault(qa.segment.id, qa.segment)
    recaps: dict[str, RecapInput] = {}
    for segment in segments.values():
        recaps.setdefault(segment.recap.video_id, segment.recap)
    tables = ReleaseTables()
    tables.recaps = [
        Recap(video_id=r.video_id, movie_name=r.movie_name, subtitle_url=r.subtitle_url, imdb_url=r.imdb_url)
        for r in recaps.values()
    ]
    number = 0
    for segment in segments.values():
        for fact in segment.facts:
            number += 1
            fact.fact_id = number
            tables.facts.append(
                Fact(
                    fact_id=number, video_id=segment.recap.video_id, segment_id=segment.number, fact=fact.text
                )
            )
        window = segment.movie_window or (None, None)
        tables.segments.append(
            Segment(
                video_id=segment.recap.video_id,
                segment_id=segment.number,
                movie_start_time=window[0],
                movie_end_time=window[1],
                recap_start_time=segment.start_s,
                recap_end_time=segment.end_s,
                fact_ids=[fact.fact_id for fact in segment.facts],
            )
        )
    tables.questions = [
        Question(
            video_id=qa.segment.recap.video_id,
            segment_id=qa.segment.number,
            question_id=qa.number,
            question=qa.question,
            answer=qa.answer,
            verbose_question=qa.verbose_question,
            vague_answer=qa.vague_answer,
            aligned_fact_ids=[qa.segment.facts[n - 1].fact_id for n in qa.fact_numbers],
        )
        for qa in questions
    ]
    return tables


def _media_csv(path: Path, rows: list[tuple[str, Path]]) -> Path | None:
    """A `video_id,path` CSV for the importer (None when there is nothing to list)."""
    if not rows:
        path.unlink(missing_ok=True)
        return None
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["video_id", "path"])
    writer.writerows([video_id, str(file)] for video_id, file in rows)
    return write_text_atomic(path, buffer.getvalue())


def _retitle(out: Path, config: RecapsBuildConfig, tables: ReleaseTables) -> None:
    card = yaml.safe_load((out / CARD).read_text(encoding="utf-8"))
    movies = ", ".join(recap.movie_name for recap in tables.recaps)
    card.update(
        name=config.name,
        version="built",
        license="questions and facts: the builder's to license; recap videos, movies and subtitles keep "
        "their own terms",
        description=(
            f"MovieRecapsQA-style open-ended questions built by `vqakit build movierecapsqa` from "
            f"{len(tables.recaps)} recap video(s) ({movies}) and their transcripts: {len(tables.questions)} "
            f"questions over {len(tables.segments)} segments, written from {len(tables.facts)} atomic facts, "
            "simplified, and labelled with a category and a modality type. The release-shaped tables are "
            "in tables/, the build's report in build/report.md."
        ),
    )
    card["fields"] = {**card.get("fields", {}), "video_id": "the recap's id (from the build's manifest)"}
    write_text_atomic(out / CARD, yaml.safe_dump(card, sort_keys=False, allow_unicode=True))


def write_output(
    out: Path, questions: list[QA], config: RecapsBuildConfig
) -> tuple[ReleaseTables, ImportReport]:
    """Tables, labels, then the benchmark folder through the importer, labelled."""
    tables = release_tables(questions)
    write_tables(out / TABLES, tables)
    labels = {qa.key: Labels(qa.category, qa.modality) for qa in questions if qa.category and qa.modality}
    write_labels(out / TABLES / LABELS_FILE, labels)
    recaps = {qa.segment.recap.video_id: qa.segment.recap for qa in questions}.values()
    media = out / "build" / MEDIA
    found = {
        kind: _media_csv(
            media / f"{kind}.csv", [(r.video_id, path) for r in recaps if (path := getattr(r, attr))]
        )
        for kind, attr in (("recaps", "recap"), ("movies", "movie"), ("subtitles", "movie_subtitles"))
    }
    report = import_movierecapsqa(
        out / TABLES,
        found["recaps"],
        found["movies"],
        found["subtitles"],
        out=out,
        writer=WRITER,  # type: ignore[arg-type]
    )
    apply_labels(out, labels)
    _retitle(out, config, tables)
    return tables, report


def label_counts(questions: list[QA]) -> list[str]:
    """Report lines: questions per category and per modality type."""
    lines = []
    for name, values in (
        ("category", [qa.category for qa in questions]),
        ("modality", [qa.modality for qa in questions]),
    ):
        counts = Counter(value for value in values if value)
        lines.append(
            f"questions by {name}: " + (", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-")
        )
    return lines
