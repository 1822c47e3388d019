"""Minerva-Ego (and MINERVA) release files to a vqakit benchmark folder (`vqakit import minerva`).

Release file: a top-level JSON list of flat records (an object whose values are records is
read too): `key, video_id, question, answer, answer_choice_0 .. answer_choice_4, answer_id,
reasoning, question type` (or `question_type`); MINERVA adds `split` and `category` and uses
YouTube ids or URLs as `video_id`, Minerva-Ego uses HD-EPIC ids. The option shapes read (the
release's five options with `answer_id` indexing them, and the older four decoys with `answer`
inserted at `answer_id`), the whitespace rule of the answer check, the skill field and the
video-id forms are described in `release.py`.

A record that cannot be read (a required field missing, options that fit neither shape, an
`answer` that is not `answer_choice_{answer_id}`, options that repeat, a key seen before) is
listed in the report as `record N (key): what is wrong` and left out, never guessed.

Videos are found by id: a file `<id>.<ext>` in the given folder (`.mp4 .mkv .webm .mov .avi`),
or a CSV with `video_id,path` rows (paths relative to the CSV). A URL and its bare id find the
same file either way. Found videos are hard-linked into `media/<id>.<ext>` (copied when linking
is impossible); questions whose video is missing are listed in the report and left out of
samples.jsonl, never written half-empty. The reasoning trace is kept as written (`reasoning`).
"""

from __future__ import annotations

import csv
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vqakit.files import place_file, write_text_atomic
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
    problems: list[str] = field(default_factory=list)  # "record N (key): what is wrong"
    shapes: dict[str, int] = field(default_factory=dict)  # option shape -> records read in it


def _records(path: Path) -> list[Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot read as JSON ({error})") from None
    if isinstance(data, dict):
        data = list(data.values())
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of records")
    return data


def _video_finder(videos: Path) -> dict[str, Path]:
    """Video files by id, each under its id as written and its bare id (`video_key`)."""
    found: dict[str, Path] = {}
    if videos.is_file() and videos.suffix.lower() == ".csv":
        with open(videos, newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        if rows and not {"video_id", "path"} <= set(rows[0]):
            raise ValueError(f"{videos}: the CSV needs video_id and path columns")
        for row in rows:
            video_id, path = (row.get("video_id") or "").strip(), (row.get("path") or "").strip()
            if video_id and path:
                found.setdefault(video_id, (videos.parent / path).resolve())
                found.setdefault(video_key(video_id), (videos.parent / path).resolve())
        return found
    if videos.is_dir():
        for path in sorted(videos.iterdir()):
            if path.suffix.lower() in VIDEO_EXTENSIONS:
                found.setdefault(path.stem, path)
        return found
    raise ValueError(f"{videos}: give a folder of videos or a CSV with video_id,path columns")


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


def import_minerva(records_path: str | Path, videos: str | Path, out: str | Path) -> ImportReport:
    """Write a benchmark folder at `out` from a Minerva-Ego / MINERVA release file."""
    records_path, out = Path(records_path), Path(out)
    found = _video_finder(Path(videos))
    report = ImportReport()
    shapes: Counter[str] = Counter()
    samples: list[dict[str, Any]] = []
    first_at: dict[str, int] = {}
    for number, record in enumerate(_records(records_path), start=1):
        if not isinstance(record, dict):
            report.problems.append(f"record {number}: not a JSON object")
            continue
        where = f"record {number} ({record['key']})" if "key" in record else f"record {number}"
        missing = [key for key in REQUIRED if key not in record]
        if missing:
            report.problems.append(f"{where}: missing {', '.join(missing)}")
            continue
        key = str(record["key"])
        if key in first_at:
            report.problems.append(f"{where}: key already used by record {first_at[key]}")
            continue
        first_at[key] = number
        try:
            options = minerva_options(record)
        except ValueError as error:
            report.problems.append(f"{where}: {error}")
            continue
        video_id = str(record["video_id"])
        source = found.get(video_id.strip()) or found.get(video_key(video_id))
        if source is None or not source.exists():
            report.missing_videos.setdefault(video_id, []).append(key)
            continue
        relative = f"media/{media_name(video_id)}{source.suffix.lower()}"
        place_file(source, out / relative)
        samples.append(_sample(record, relative, options))
        shapes[options.shape] += 1
    out.mkdir(parents=True, exist_ok=True)
    card = {
        **CARD,
        "description": f"{CARD['description']} Source: {records_path.name}.",
        "protocol": PROTOCOL.model_dump(),
    }
    write_text_atomic(out / "benchmark.yaml", yaml.safe_dump(card, sort_keys=False))
    write_text_atomic(
        out / "samples.jsonl", "".join(json.dumps(sample, ensure_ascii=False) + "\n" for sample in samples)
    )
    report.written = len(samples)
    report.shapes = dict(shapes)
    return report
