"""Minerva-Ego (and MINERVA) release files to a vqakit benchmark folder.

Release shape (one JSON list, or an object whose values are records): `key, video_id,
question, answer, answer_choice_0 .. answer_choice_3, answer_id, reasoning, question type`;
MINERVA adds `split, category` (and uses YouTube URLs as video ids).

Option order: the five options are the four `answer_choice_*` in order with `answer` inserted
at position `answer_id` (0-based), so `choices[answer_id] == answer`. The test fixture checks
this on records whose options are a natural sequence.

Videos are found by id: a file `<video_id>.<ext>` in the given folder (the id's last URL or
path component is used for MINERVA's URLs), or a CSV with `video_id,path` rows. Found videos
are hard-linked into `media/` (copied when linking is impossible); questions whose video is
missing are listed in the report and left out of samples.jsonl, never written half-empty.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vqakit.files import link_or_copy, write_text_atomic
from vqakit.systems.minerva_ego.protocol import PROTOCOL

VIDEO_EXTENSIONS = (".mp4", ".mkv", ".webm", ".mov", ".avi")
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
    },
}


@dataclass
class ImportReport:
    written: int = 0
    missing_videos: dict[str, list[str]] = field(default_factory=dict)  # video id -> question keys
    problems: list[str] = field(default_factory=list)  # "record N: what is wrong"


def _records(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: cannot read as JSON ({error})") from None
    if isinstance(data, dict):
        data = list(data.values())
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of records")
    return data


def _video_stem(video_id: str) -> str:
    return re.split(r"[/=]", video_id.rstrip("/"))[-1]


def _video_finder(videos: Path) -> dict[str, Path]:
    if videos.is_file() and videos.suffix.lower() == ".csv":
        with open(videos, newline="", encoding="utf-8") as handle:
            return {
                row["video_id"]: (videos.parent / row["path"]).resolve() for row in csv.DictReader(handle)
            }
    if videos.is_dir():
        return {
            path.stem: path for path in sorted(videos.iterdir()) if path.suffix.lower() in VIDEO_EXTENSIONS
        }
    raise ValueError(f"{videos}: give a folder of videos or a CSV with video_id,path columns")


def minerva_options(record: dict[str, Any]) -> list[str]:
    choices = [str(record[f"answer_choice_{i}"]) for i in range(4) if f"answer_choice_{i}" in record]
    answer_id = int(record["answer_id"])
    if not 0 <= answer_id <= len(choices):
        raise ValueError(f"answer_id {answer_id} is out of range for {len(choices) + 1} options")
    return [*choices[:answer_id], str(record["answer"]), *choices[answer_id:]]


def _link(source: Path, target: Path) -> None:
    if not target.exists():
        link_or_copy(source, target)


def import_minerva(records_path: str | Path, videos: str | Path, out: str | Path) -> ImportReport:
    """Write a benchmark folder at `out` from a Minerva-Ego / MINERVA release file."""
    records_path, out = Path(records_path), Path(out)
    found = _video_finder(Path(videos))
    report = ImportReport()
    samples = []
    for number, record in enumerate(_records(records_path), start=1):
        missing = [key for key in REQUIRED if key not in record]
        if missing:
            report.problems.append(f"record {number}: missing {', '.join(missing)}")
            continue
        try:
            options = minerva_options(record)
        except ValueError as error:
            report.problems.append(f"record {number} ({record['key']}): {error}")
            continue
        video_id = str(record["video_id"])
        source = found.get(video_id) or found.get(_video_stem(video_id))
        if source is None or not source.exists():
            report.missing_videos.setdefault(video_id, []).append(str(record["key"]))
            continue
        relative = f"media/{_video_stem(video_id)}{source.suffix.lower()}"
        _link(source, out / relative)
        question_type = record.get("question type") or record.get("question_type")
        skills = [part.strip() for part in re.split(r"[,;]", str(question_type or "")) if part.strip()]
        metadata: dict[str, Any] = {
            "category": record.get("category") or (skills[0] if skills else None),
            "skills": skills,
            "modality": "visual",
            "key": str(record["key"]),
        }
        if question_type:
            metadata["question_type"] = question_type
        if record.get("split"):
            metadata["split"] = record["split"]
        sample: dict[str, Any] = {
            "id": str(record["key"]),
            "videos": [{"path": relative}],
            "question": record["question"],
            "choices": options,
            "answer": int(record["answer_id"]),
            "metadata": {k: v for k, v in metadata.items() if v is not None},
        }
        if record.get("reasoning"):
            sample["reasoning"] = record["reasoning"]
        samples.append(sample)
    out.mkdir(parents=True, exist_ok=True)
    card = {
        **CARD,
        "description": f"{CARD['description']} Source: {records_path.name}.",
        "protocol": PROTOCOL.model_dump(),
    }
    write_text_atomic(out / "benchmark.yaml", yaml.safe_dump(card, sort_keys=False))
    with open(out / "samples.jsonl", "w", encoding="utf-8") as handle:
        for sample in samples:
            handle.write(json.dumps(sample, ensure_ascii=False) + "\n")
    report.written = len(samples)
    return report
