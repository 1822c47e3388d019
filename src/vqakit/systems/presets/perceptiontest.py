"""Perception Test multiple-choice video QA (`vqakit import perceptiontest`): the annotations
JSON as unzipped, and the videos.

```
mc_question_valid.json    {video_id: {"metadata": {...}, "mc_question": [{"id", "question",
                          "options" (3), "answer_id", "area", "reasoning", "tag"}]}}
                          (mc_question_test.json: the same without answer_id)
videos/<video_id>.mp4     from valid_videos.zip / test_videos.zip: give this folder as --videos
```

One question per row. The test split's answers are hidden: run it, then `vqakit export RUN
--format perceptiontest` writes the JSON the challenge server takes,
`{video_id: [{"id", "answer_id", "answer"}]}`.
"""

from __future__ import annotations

import json
from pathlib import Path

from vqakit.files import InputError, one_line
from vqakit.report import Answer, SubmissionFormat, register_submission
from vqakit.systems.presets.release import import_release, release_object, rows_source
from vqakit.tables import Preset, TableImport, register_preset

SPLITS = ("valid", "test", "train")


def _annotations(release: Path, split: str | None) -> Path:
    if release.is_file():
        return release
    chosen = split or SPLITS[0]
    for name in (f"mc_question_{chosen}.json", f"all_{chosen}.json"):
        if (release / name).is_file():
            return release / name
    raise InputError(f"{release}: no mc_question_{chosen}.json (nor all_{chosen}.json)")


def import_perceptiontest(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    path = _annotations(release, split)
    document = release_object(path, "videos")
    rows, problems, number = [], [], 0
    for video_id, entry in document.items():
        questions = entry.get("mc_question") if isinstance(entry, dict) else None
        if not isinstance(questions, list):
            problems.append(one_line(f"{path}: video {video_id}: no mc_question list"))
            continue
        for question in questions:
            number += 1
            if not isinstance(question, dict):
                where = f"{path}:{number}: video {video_id}"
                problems.append(one_line(f"{where}: a question must be a JSON object"))
                continue
            rows.append((path, number, {**question, "video_id": video_id}))
    name = "perceptiontest" + (f"-{split}" if split and split != SPLITS[0] else "")
    return import_release(
        "perceptiontest",
        rows_source(path, rows, split=split, problems=problems),
        videos,
        out,
        card={"name": name},
    )


def perceptiontest_submission(answers: list[Answer]) -> str:
    """`{video_id: [{"id", "answer_id", "answer"}]}`, as the challenge server takes it."""
    by_video: dict[str, list[dict]] = {}
    for answer in answers:
        meta = answer.sample.metadata.model_extra or {}
        video = str(meta.get("video_id") or answer.sample.id.rsplit("-", 1)[0])
        by_video.setdefault(video, []).append(
            {
                "id": meta.get("question_id"),
                "answer_id": answer.choice,
                "answer": (answer.sample.choices or [])[answer.choice] if answer.choice is not None else None,
            }
        )
    return json.dumps(by_video, indent=1, ensure_ascii=False) + "\n"


register_submission(
    SubmissionFormat(
        "perceptiontest",
        "Perception Test's multiple-choice QA JSON (challenge server)",
        ".json",
        perceptiontest_submission,
    )
)

PRESET = register_preset(
    Preset(
        name="perceptiontest",
        title="Perception Test",
        summary="mc_question_<split>.json of the release plus its videos",
        run=import_perceptiontest,
        homepage="https://github.com/google-deepmind/perception_test",
        splits=SPLITS,
        submission="perceptiontest",
    )
)
