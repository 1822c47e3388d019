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
per-task accuracies (`question_type` in results.json). The test split's answers are hidden:
`vqakit export RUN --format mlvu` writes the list MLVU's leaderboard takes,
`[{"question_id", "question_type", "option"}]`.
"""

from __future__ import annotations

import json
from pathlib import Path

from vqakit.report import Answer, SubmissionFormat, register_submission
from vqakit.systems.presets.release import import_release, rows_source, split_of
from vqakit.tables import Preset, TableImport, read_document, register_preset

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


def _records(path: Path, problems: list[str]) -> list[tuple[int, dict]]:
    document = read_document(path)
    if not isinstance(document, list):
        raise ValueError(f"{path}: expected a list of questions")
    kept = []
    for number, record in enumerate(document, 1):
        if isinstance(record, dict):
            kept.append((number, record))
        else:
            problems.append(f"{path}:{number}: a question must be a JSON object")
    return kept


def import_mlvu(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    chosen = split_of(split, SPLITS)
    rows, problems = [], []
    if chosen == "test":
        path = release / "test_question.json" if release.is_dir() else release
        for number, record in _records(path, problems):
            key = str(record.get("question_id") or f"test-{number}")
            row = {**record, "key": key, "folder": "", "answer": None, "duration": None}
            rows.append((path, number, row))
    else:
        folder = release / "json" if (release / "json").is_dir() else release
        for task in DEV_TASKS:
            path = folder / f"{task}.json"
            if not path.is_file():
                continue
            for number, record in _records(path, problems):
                row = {**record, "key": f"{task}-{number}", "folder": f"{task}/", "question_id": None}
                rows.append((path, number, row))
        if not rows:
            raise ValueError(f"{folder}: none of MLVU's task files ({', '.join(DEV_TASKS)}.json)")
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
