"""Minerva-Ego (and MINERVA) release files to a vqakit benchmark folder (`vqakit import minerva`).

Release file: a top-level JSON list of flat records (an object whose values are records is
read too): `key, video_id, question, answer, answer_choice_0 .. answer_choice_4, answer_id,
reasoning, question type` (or `question_type`); MINERVA adds `split` and `category` and uses
YouTube ids or URLs as `video_id`, Minerva-Ego uses HD-EPIC ids. The option shapes read (the
release's five options with `answer_id` indexing them, and the older four decoys with `answer`
inserted at `answer_id`), the whitespace rule of the answer check, the skill field and the
video-id forms are described in `release.py`.

A record that cannot be read (a required field missing, options that fit neither shape, an
`answer` that is not `answer_choice_{answer_id}`, options that repeat, a key seen before, a value
the hardened reader refuses such as an id beyond 64 bits) is listed in the report as
`FILE: record N (key): field: what is wrong` and left out, never guessed.

Videos are found by id: a file `<id>.<ext>` in the given folder (`.mp4 .mkv .webm .mov .avi`;
links to files are followed, folders named like videos are not videos), or a CSV with
`video_id,path` rows (paths relative to the CSV). A URL and its bare id find the same file
either way. Found videos are resolved to their real files and hard-linked into
`media/<id>.<ext>` (copied when linking is impossible; symbolic links to their absolute paths
with `link_media`); two different files never share a name (`kitchenA/clip` and
`kitchenB/clip` become `clip.mp4` and `clip-2.mp4`). Questions whose video is missing are listed
in the report and left out of samples.jsonl, never written half-empty. The folder is written
beside `out` and renamed into place only once it validates. The reasoning trace is kept as
written (`reasoning`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.builders import check_benchmark_out, write_benchmark_folder
from vqakit.files import InputError, MediaPlan, read_table, reading
from vqakit.systems.minerva_ego.protocol import PROTOCOL
from vqakit.systems.minerva_ego.release import (
    VIDEO_EXTENSIONS,
    Options,
    media_name,
    minerva_options,
    skills,
    video_key,
)

REQUIRED = ("key", "video_id", "question", "answer", "answer_id")

CARD = {
    "name": "minerva-ego",
    "version": "imported",
    "license": "see the release this was imported from",
    "description": "Minerva-Ego style multiple choice questions with reference reasoning traces, "
    "imported by `vqakit import minerva`.",
    "protocol": {},  # filled from PROTOCOL
    "fields": {
        "question_type": "the release's `question type` field, as written",
        "split": "MINERVA only: the release split",
        "key": "the release's question key",
        "video_id": "the release's video id, as written (a YouTube URL for some MINERVA mirrors)",
    },
}


@dataclass
class ImportReport:
    written: int = 0
    missing_videos: dict[str, list[str]] = field(default_factory=dict)  # video id -> question keys
    problems: list[str] = field(default_factory=list)  # "FILE: record N (key): field: what is wrong"
    shapes: dict[str, int] = field(default_factory=dict)  # option shape -> records read in it


WRITER = "import minerva"  # the command, as the folder's marker records it


def _video_finder(videos: Path) -> dict[str, Path]:
    """Video files by id, each under its id as written and its bare id (`video_key`)."""
    found: dict[str, Path] = {}
    if videos.is_file() and videos.suffix.lower() == ".csv":
        with reading(videos):
            table = read_table(videos, "csv")
        if table.records and not {"video_id", "path"} <= set(table.columns):
            raise InputError(f"{videos}:1: the CSV needs video_id and path columns")
        for row in table.rows:
            video_id, path = str(row.data["video_id"]).strip(), str(row.data["path"]).strip()  # type: ignore[index]
            if video_id and path:
                found.setdefault(video_id, videos.parent / path)
                found.setdefault(video_key(video_id), videos.parent / path)
        return found
    if videos.is_dir():
        for path in sorted(videos.iterdir()):
            if path.suffix.lower() in VIDEO_EXTENSIONS and path.is_file():
                found.setdefault(path.stem, path)
        return found
    raise InputError(f"{videos}: give a folder of videos or a CSV with video_id,path columns")


def _sample(record: dict[str, Any], relative: str, options: Options) -> dict[str, Any]:
    """One samples.jsonl line from a record and its options."""
    question_type, skill_list = skills(record)
    metadata: dict[str, Any] = {
        "category": record.get("category") or (skill_list[0] if skill_list else None),
        "skills": skill_list,
        "modality": "visual",
        "key": str(record["key"]),
        "question_type": question_type,
        "split": record.get("split") or None,
        "video_id": str(record["video_id"]),
    }
    sample: dict[str, Any] = {
        "id": str(record["key"]),
        "videos": [{"path": relative}],
        "question": str(record["question"]),
        "choices": options.choices,
        "answer": options.answer,
        "metadata": {k: v for k, v in metadata.items() if v is not None},
    }
    if isinstance(record.get("reasoning"), str) and record["reasoning"].strip():
        sample["reasoning"] = record["reasoning"]
    return sample


def import_minerva(
    records_path: str | Path,
    videos: str | Path,
    out: str | Path,
    *,
    link_media: bool = False,
    card: dict[str, Any] | None = None,
    writer: str = WRITER,
) -> ImportReport:
    """Write a benchmark folder at `out` from a Minerva-Ego / MINERVA release file (a JSON list
    of records, an object of records, or JSONL). `card` replaces fields of the card written
    (MINERVA's preset gives its own name, description, breakdowns and table). Raises `InputError`
    when the file cannot be read at all, `BenchmarkError` when the folder would not validate
    (nothing is written then), `OutFolderRefused` for an `out` that is not new, empty or an
    earlier import of the same command (`writer`), or that lies inside an input."""
    records_path, out = Path(records_path), Path(out)
    check_benchmark_out(out, writer, inputs=[records_path, videos])
    found = _video_finder(Path(videos))
    with reading(records_path):
        table = read_table(records_path)
    report = ImportReport()
    shapes: Counter[str] = Counter()
    samples: list[dict[str, Any]] = []
    first_at: dict[str, int] = {}
    plan = MediaPlan()
    for row in table.records:
        record, number = row.data, row.number
        place = f"{records_path}{f':{row.line}' if row.line else ''}: record {number}"
        if record is None:
            problem = row.problem
            report.problems.append(f"{place}: {problem.field}: {problem.message}" if problem else place)
            continue
        where = f"{place} ({record['key']})" if "key" in record else place
        missing = [key for key in REQUIRED if key not in record]
        if missing:
            report.problems.append(f"{where}: -: missing {', '.join(missing)}")
            continue
        key = str(record["key"])
        if key in first_at:
            report.problems.append(f"{where}: key: already used by record {first_at[key]}")
            continue
        first_at[key] = number
        try:
            options = minerva_options(record)
        except ValueError as error:
            report.problems.append(f"{where}: -: {error}")
            continue
        video_id = str(record["video_id"])
        source = found.get(video_id.strip()) or found.get(video_key(video_id))
        try:
            present = source is not None and source.is_file()
        except OSError as error:  # a name too long for the file system, ...
            report.problems.append(f"{where}: video_id: {source}: cannot be looked up ({error.strerror})")
            continue
        if not present:
            report.missing_videos.setdefault(video_id, []).append(key)
            continue
        try:
            name = plan.add(f"{media_name(video_id)}{source.suffix.lower()}", source)
        except InputError as error:  # e.g. a video that cannot be read: this question only
            report.problems.append(f"{where}: video_id: {error}")
            continue
        samples.append(_sample(record, f"media/{name}", options))
        shapes[options.shape] += 1
    if not samples:
        why = report.problems[:10] + [f"missing video {video_id}" for video_id in report.missing_videos][:10]
        if report.missing_videos:
            why.append(f"videos are looked up in {videos}")
        raise InputError("\n".join([f"{records_path}: no question could be written", *why]))
    written_card = {**CARD, "protocol": PROTOCOL.model_dump(), **(card or {})}
    written_card["description"] = f"{written_card['description']} Source: {records_path.name}."
    # the videos are opened by `vqakit validate`; the import checks everything else
    write_benchmark_folder(
        out,
        card=written_card,
        samples=samples,
        media=plan.files,
        link_media=link_media,
        open_media=False,
        writer=writer,
    )
    report.written = len(samples)
    report.shapes = dict(shapes)
    return report
