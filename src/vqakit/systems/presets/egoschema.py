"""EgoSchema (`vqakit import egoschema`): the release repository as cloned, and its videos.

```
EgoSchema/
  questions.json          q_uid, google_drive_id, question, option 0 .. option 4
  subset_answers.json     {q_uid: index of the correct option} for 500 questions
  videos/<q_uid>.mp4      as download.py saves them: give this folder as --videos
```

Every question is imported; the 500 with public answers are scored, the others are run with
their answers hidden (`answers: hidden`) and scored by EgoSchema's server: `vqakit export RUN
--format egoschema` writes the `q_uid,answer` CSV its Kaggle competition takes, and
`--format egoschema-json` the `{q_uid: answer}` object its validation server takes. `--subset`
imports only the 500 answered questions.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from vqakit.files import find_unusable, one_line
from vqakit.report import Answer, SubmissionFormat, register_submission
from vqakit.systems.presets.release import import_release, release_object, release_records, rows_source
from vqakit.tables import Preset, PresetOption, TableImport, register_preset


def import_egoschema(
    release: Path, videos: Path, out: Path, split: str | None = None, subset: bool | None = None
) -> TableImport:
    questions = release / "questions.json" if release.is_dir() else release
    answers_file = questions.parent / "subset_answers.json"
    records, problems = release_records(questions)
    answers = release_object(answers_file, "q_uid: answer index") if answers_file.exists() else {}
    rows = []
    for number, record in records:
        uid = str(record.get("q_uid"))
        known = answers.get(uid)
        if (found := find_unusable(known)) is not None:  # the answer key's entry, not the question
            problems.append(one_line(f"{answers_file}: {uid}: {found[1]}"))
            continue
        if subset and known is None:
            continue
        row = {**record, "answer": known, "answers": "subset" if known is not None else "hidden"}
        rows.append((questions, number, row))
    return import_release("egoschema", rows_source(questions, rows, problems=problems), videos, out)


def egoschema_submission(answers: list[Answer]) -> str:
    """`q_uid,answer` rows (the option's index, 0-4), as EgoSchema's Kaggle competition takes."""
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["q_uid", "answer"])
    writer.writerows([answer.sample.id, answer.choice] for answer in answers)
    return text.getvalue()


def egoschema_json(answers: list[Answer]) -> str:
    """`{q_uid: answer}`, as EgoSchema's validation server takes it."""
    return json.dumps({answer.sample.id: answer.choice for answer in answers}, indent=1) + "\n"


register_submission(
    SubmissionFormat("egoschema", "EgoSchema's q_uid,answer CSV (Kaggle)", ".csv", egoschema_submission)
)
register_submission(
    SubmissionFormat(
        "egoschema-json", "EgoSchema's {q_uid: answer} JSON (validation server)", ".json", egoschema_json
    )
)

PRESET = register_preset(
    Preset(
        name="egoschema",
        title="EgoSchema",
        summary="questions.json and subset_answers.json of the release plus the downloaded videos",
        run=import_egoschema,
        homepage="https://github.com/egoschema/EgoSchema",
        options=(PresetOption("subset", "Only the 500 questions whose answers are public.", flag=True),),
        submission="egoschema",
        notes=("questions with hidden answers: score them with vqakit export RUN --format egoschema",),
    )
)
