"""The MovieRecapsQA release tables plus the user's media to a benchmark folder
(`vqakit import movierecapsqa`).

One open-ended sample per question, with id `video_id.segment_id.question_id` (the official
evaluation code's key) and the release's answer as reference. Each sample links the question
to its recap segment, its aligned movie segment, the segment's facts and the movie subtitles,
so that one benchmark folder serves every setting of `settings.py`:

- `videos`: what was found, in this order, each named in `metadata.video_roles`:
  `recap_segment` (the recap video cut to the segment), `movie_segment` (the movie cut to the
  aligned window), `recap` (the whole recap), `movie` (the whole movie). Windows are clipped
  to the video's probed length (a copy a little shorter than the release's); a window that
  starts after the video ends is left out and noted.
- `metadata.recap_window`, `metadata.movie_window`: the release's windows as written (the
  movie window is on the clock of the movie's subtitle file, and cuts the dialogue);
  `metadata.movie_subtitles`: the movie's subtitle file (not `subtitles`, which belongs to
  `videos[0]`, the recap).
- `facts`: the texts of the question's `aligned_fact_ids`; `metadata.segment_facts`: every
  fact of the segment (what the judges check claims against).

Media are found as `media.py` describes and hard-linked (or copied) under `media/recaps/`,
`media/movies/` and `media/subtitles/`. Nothing missing stops the import: a record that does
not fit the tables, a video or subtitle file not found or unreadable, a segment or fact id
that does not exist, are listed per item in the report and in the sample's `metadata.lacks`.
A question with neither its recap nor its movie video is left out (a sample needs a video).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.builders import check_benchmark_out, write_benchmark_folder
from vqakit.systems.movierecapsqa.media import (
    FoundMedia,
    MediaCollector,
    movie_files,
    recap_files,
    subtitle_files,
)
from vqakit.systems.movierecapsqa.protocol import PROTOCOL
from vqakit.systems.movierecapsqa.tables import Fact, Question, Recap, Segment, id_key, read_tables

CARD: dict[str, Any] = {
    "name": "movierecapsqa",
    "version": "imported",
    "license": "CC-BY-4.0 (the release tables); recap videos, movies and subtitles keep their own terms",
    "description": "MovieRecapsQA: open-ended questions about movie recap segments, answered from "
    "frames and the aligned movie dialogue, imported by `vqakit import movierecapsqa`.",
    "homepage": "https://github.com/sshaar/MovieRecapsQA",
    "citation": "Shaar et al., MovieRecapsQA: A Multimodal Open-Ended Video Question-Answering "
    "Benchmark, CVPR 2026, arXiv:2601.02536",
    "fields": {
        "video_id": "the recap's YouTube id",
        "segment_id": "the segment's id within its recap, as written in the release",
        "question_id": "the question's id within its segment, as written in the release",
        "question_idx": "the question's 0-based position in the release's questions table (the "
        "official evaluation code's question_idx)",
        "movie_name": "the movie the recap is about",
        "verbose_question": "the question before it was simplified (names kept)",
        "vague_answer": "the release's intentionally vague version of the answer",
        "aligned_fact_ids": "ids of the facts the question was made from (their texts are `facts`)",
        "segment_fact_ids": "ids of every fact of the recap segment",
        "segment_facts": "texts of every fact of the recap segment",
        "recap_window": "[start, end] of the recap segment, seconds in the recap video",
        "movie_window": "[start, end] of the aligned movie segment, seconds on the movie subtitles' "
        "clock; null where the segment was not aligned",
        "video_roles": "what each entry of `videos` is: recap_segment, movie_segment, recap, movie",
        "movie_subtitles": "the movie's subtitle file; the dialogue of a sample is its cues in movie_window",
        "lacks": "what the import could not find for this question",
    },
}


@dataclass
class ImportReport:
    written: int = 0
    lacking: dict[str, list[str]] = field(default_factory=dict)  # sample id -> what it lacks
    left_out: dict[str, str] = field(default_factory=dict)  # question key -> why it was not written
    problems: list[str] = field(default_factory=list)  # table records and media files not usable
    found: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (found, recaps asked)


def _window(start: float, end: float, video: tuple[str, float], role: str, lacks: list[str]) -> dict | None:
    path, duration = video
    if start >= duration - 1e-3:
        lacks.append(f"{role} window (starts at {start:g}s, after the video's end at {duration:.3f}s)")
        return None
    return {"path": path, "start_s": start, "end_s": min(end, duration)}


def _fact_texts(ids: list[int | str], facts: dict[str, Fact], lacks: list[str]) -> list[str]:
    texts = []
    for fact_id in ids:
        fact = facts.get(id_key(fact_id))
        if fact is None:
            if f"fact {fact_id}" not in lacks:
                lacks.append(f"fact {fact_id}")
        else:
            texts.append(fact.fact)
    return texts


def _sample(
    question: Question,
    position: int | None,
    recap: Recap | None,
    segment: Segment | None,
    media: FoundMedia,
    facts: dict[str, Fact],
) -> tuple[dict[str, Any], list[str]]:
    lacks = ([] if recap else ["recap record"]) + list(media.lacks)
    if segment is None:
        lacks.append(f"segment {question.segment_id}")
    elif segment.movie_start_time is None and segment.movie_end_time is None:
        lacks.append("movie window (the segment is not aligned to the movie)")
    elif segment.movie_window is None:
        times = f"{segment.movie_start_time} to {segment.movie_end_time}"
        lacks.append(f"movie window (movie_start_time to movie_end_time is {times})")
    videos: list[dict[str, Any]] = []
    roles: list[str] = []
    recap_window = [segment.recap_start_time, segment.recap_end_time] if segment else None
    movie_window = list(segment.movie_window) if segment and segment.movie_window else None
    for role, window, video in (
        ("recap_segment", recap_window, media.recap),
        ("movie_segment", movie_window, media.movie),
    ):
        if window and video and (ref := _window(window[0], window[1], video, role, lacks)):
            videos.append(ref)
            roles.append(role)
    for role, video in (("recap", media.recap), ("movie", media.movie)):
        if video:
            videos.append({"path": video[0]})
            roles.append(role)
    segment_ids = list(segment.fact_ids) if segment else []
    if segment is not None and not segment_ids:
        same = (question.video_id, id_key(question.segment_id))
        segment_ids = [f.fact_id for f in facts.values() if (f.video_id, id_key(f.segment_id)) == same]
    extra = question.model_extra or {}
    metadata = {
        "category": extra.get("category") if isinstance(extra.get("category"), str) else None,
        "modality": extra.get("modality") if isinstance(extra.get("modality"), str) else None,
        "video_id": question.video_id,
        "segment_id": question.segment_id,
        "question_id": question.question_id,
        "question_idx": position,
        "movie_name": recap.movie_name if recap else None,
        "verbose_question": question.verbose_question,
        "vague_answer": question.vague_answer,
        "aligned_fact_ids": list(question.aligned_fact_ids),
        "segment_fact_ids": segment_ids,
        "segment_facts": _fact_texts(segment_ids, facts, lacks),
        "recap_window": recap_window,
        "movie_window": movie_window,
        "video_roles": roles,
        "movie_subtitles": media.subtitles,
        "lacks": lacks,
    }
    sample = {
        "id": question.key,
        "question": question.question,
        "videos": videos,
        "answer": question.answer,
        "facts": [text for text in _fact_texts(question.aligned_fact_ids, facts, lacks) if text.strip()],
        "metadata": {k: v for k, v in metadata.items() if v is not None or k.endswith("window")},
    }
    return sample, lacks


def import_movierecapsqa(
    tables_dir: str | Path,
    recaps: str | Path,
    movies: str | Path | None = None,
    subtitles: str | Path | None = None,
    *,
    out: str | Path,
    link_media: bool = False,
    writer: str = "import movierecapsqa",
) -> ImportReport:
    """Write a benchmark folder at `out` from the release tables and the user's media (see the
    module docstring); raises ValueError only when an input cannot be read at all. The folder is
    written beside `out` and renamed into place once it validates (nothing is left by a failure);
    `link_media` links the videos by their absolute paths instead of placing them. `writer`: the
    command (`vqakit import movierecapsqa`, or the builder that made the tables in `out`): `out`
    must be new, empty or its own earlier output, and hold no input where the benchmark is
    written (`OutFolderRefused` before anything is read)."""
    check_benchmark_out(out, writer, inputs=[tables_dir, recaps, movies, subtitles])
    tables = read_tables(tables_dir)
    report = ImportReport(problems=list(tables.problems))
    collector = MediaCollector(
        recap_files(recaps),
        movie_files(movies) if movies is not None else None,
        subtitle_files(subtitles) if subtitles is not None else None,
    )
    for files in (collector.recaps, collector.movies, collector.subtitles):
        report.problems += files.problems if files is not None else []
    recap_by_id = {recap.video_id: recap for recap in tables.recaps}
    segments = {(s.video_id, id_key(s.segment_id)): s for s in tables.segments}
    facts = {id_key(fact.fact_id): fact for fact in tables.facts}
    asked = list(dict.fromkeys(question.video_id for question in tables.questions))
    media = {
        video_id: collector.collect(video_id, recap_by_id.get(video_id), report.problems)
        for video_id in asked
    }
    report.found = {
        "recap videos": (sum(m.recap is not None for m in media.values()), len(asked)),
        "movies": (sum(m.movie is not None for m in media.values()), len(asked)),
        "movie subtitles": (sum(m.subtitles is not None for m in media.values()), len(asked)),
    }
    samples = []
    for question in tables.questions:
        segment = segments.get((question.video_id, id_key(question.segment_id)))
        position = tables.question_positions.get(question.key)
        recap, found = recap_by_id.get(question.video_id), media[question.video_id]
        sample, lacks = _sample(question, position, recap, segment, found, facts)
        if not sample["videos"]:
            report.left_out[question.key] = "no recap or movie video (lacks " + "; ".join(lacks) + ")"
            continue
        samples.append(sample)
        if lacks:
            report.lacking[question.key] = lacks
    if not samples:
        raise ValueError(
            f"{tables_dir}: no question could be written (none has a recap or movie video found)"
        )
    card = {**CARD, "protocol": PROTOCOL.model_dump()}
    card["description"] += f" Tables: {Path(tables_dir).name}."
    write_benchmark_folder(
        out, card=card, samples=samples, media=collector.media, link_media=link_media, writer=writer
    )
    report.written = len(samples)
    return report
