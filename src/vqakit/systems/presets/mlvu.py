"""MLVU, multiple-choice tasks (`vqakit import mlvu`): the dev or test release as unpacked.

```
MLVU/                                   dev
  json/1_plotQA.json ... 7_topic_reasoning.json   video, duration, question, candidates,
                                                   answer (the option's text), question_type
  video/1_plotQA/<video> ...            each task's videos in its folder: give video/ as --videos
MLVU_Test/                              test
  test_question.json                    question_id, question_type, video, question, candidates
  video/<video>                         give video/ as --videos
```

The two generation tasks of the dev set (`8_sub_scene`, `9_summary`) are open-ended and scored
by a GPT judge in MLVU; they are not imported. MLVU's headline number, M-Avg, is the mean of the
per-task accuracies (`question_type` in results.json). Results also break down by
`duration_group`: the release gives each video's `duration` in seconds, not a group, so it is
put in vqakit's length buckets (<1 min, 1-3 min, 3-10 min, 10-30 min, 30-60 min, >1 h). The test
split's answers are hidden: `vqakit export RUN --format mlvu` writes the list MLVU's
leaderboard takes, `[{"question_id", "question_type", "option"}]`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from vqakit.files import InputError
from vqakit.report import Answer, SubmissionFormat, register_submission
from vqakit.schema import length_bucket
from vqakit.systems.presets.release import import_release, release_records, rows_source, split_of
from vqakit.tables import Preset, TableImport, register_preset

SPLITS = ("dev", "test")
DEV_TASKS = (
    "1_plotQA",
    "2_needle",
    "3_ego",
    "4_count",
    "5_order",
    "6_anomaly_reco",
    "7_topic_reasoning",
)


def duration_group(duration: Any) -> str | None:
    """The length bucket (`vqakit.schema.length_bucket`: <1 min, 1-3 min, 3-10 min, 10-30 min,
    30-60 min, >1 h) of the release's `duration` in seconds; None where it gives none. ValueError
    for a value that is not a duration."""
    if duration is None or (isinstance(duration, str) and not duration.strip()):
        return None
    if isinstance(duration, bool) or not isinstance(duration, int | float | str):
        raise ValueError(f"{duration!r} is not a duration in seconds")
    try:
        seconds = float(duration)
    except (ValueError, OverflowError):
        raise ValueError(f"{str(duration)[:40]!r} is not a duration in seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise ValueError(f"{duration!r} is not a duration in seconds (0 or more)")
    return length_bucket(seconds)


def _grouped(path: Path, number: int, record: dict[str, Any], problems: list[str]) -> dict[str, Any] | None:
    """The record with its duration group, or None with a problem line naming its duration."""
    try:
        return {**record, "duration_group": duration_group(record.get("duration"))}
    except ValueError as error:
        problems.append(f"{path}:{number}:duration: {error}")
        return None


def import_mlvu(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    chosen = split_of(split, SPLITS)
    rows: list[tuple[Path, int, dict[str, Any]]] = []
    problems: list[str] = []
    if chosen == "test":
        path = release / "test_question.json" if release.is_dir() else release
        records, problems = release_records(path)
        for number, record in records:
            if (row := _grouped(path, number, record, problems)) is not None:
                key = str(record.get("question_id") or f"test-{number}")
                extra = {"key": key, "folder": "", "answer": None, "duration": record.get("duration")}
                rows.append((path, number, {**row, **extra, "question_id": record.get("question_id")}))
    else:
        folder = release / "json" if (release / "json").is_dir() else release
        found = [folder / f"{task}.json" for task in DEV_TASKS if (folder / f"{task}.json").exists()]
        if not found:
            raise InputError(f"{folder}: none of MLVU's task files ({', '.join(DEV_TASKS)}.json)")
        for path in found:
            try:
                records, bad = release_records(path)
            except InputError as error:  # one task's file cannot be read: the others still can
                problems.append(str(error))
                continue
            problems += bad
            for number, record in records:
                if (row := _grouped(path, number, record, problems)) is not None:
                    extra = {"key": f"{path.stem}-{number}", "folder": f"{path.stem}/", "question_id": None}
                    rows.append((path, number, {**row, **extra}))
    source = rows_source(release, rows, split=chosen, problems=problems)
    return import_release("mlvu", source, videos, out, card={"name": f"mlvu-{chosen}"})


def mlvu_submission(answers: list[Answer]) -> str:
    """`[{"question_id", "question_type", "option"}]`, as MLVU's test evaluation takes it."""
    listed = []
    for answer in answers:
        meta = answer.sample.metadata.model_extra or {}
        listed.append(
            {
                "question_id": meta.get("question_id", answer.sample.id),
                "question_type": meta.get("question_type"),
                "option": answer.letter,
            }
        )
    return json.dumps(listed, indent=1) + "\n"


register_submission(
    SubmissionFormat("mlvu", "MLVU test's answer list (leaderboard)", ".json", mlvu_submission)
)

PRESET = register_preset(
    Preset(
        name="mlvu",
        title="MLVU",
        summary="json/<task>.json of the dev release (test_question.json of the test release) and the videos",
        run=import_mlvu,
        homepage="https://github.com/JUNJIE99/MLVU",
        splits=SPLITS,
        submission="mlvu",
    )
)
