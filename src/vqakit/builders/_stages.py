"""What each stage of a build kept and dropped, and why.

`drops.jsonl` (rewritten per run) holds one line per dropped item: stage, item id and reason.
`stages.json` and `report.md` count each stage's input and output, with the drops grouped by
reason (a reason's text before any ':'), plus the build's notes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.builders._inputs import InputError
from vqakit.files import LogAppender, LogContents, write_text_atomic

DROPS = "drops.jsonl"


@dataclass
class Stage:
    name: str
    unit: str  # what is counted, e.g. "questions" or "videos -> windows"
    before: int
    after: int
    dropped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": self.name,
            "unit": self.unit,
            "in": self.before,
            "out": self.after,
            "dropped": self.dropped,
        }


class DropLog:
    """Dropped items of one run, appended to `drops.jsonl` as they happen."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")  # this run's drops: the file is the run's output
        self.path = path
        self._appender = LogAppender(LogContents(path))
        self.records: list[dict[str, str]] = []

    def add(self, stage: str, item: str, reason: str) -> None:
        record = {"stage": stage, "item": item, "reason": reason}
        self._appender.append([json.dumps(record)])
        self.records.append(record)

    def reasons(self, stage: str) -> dict[str, int]:
        """Drop counts of a stage by reason (reasons are grouped by their text before any ':')."""
        return dict(Counter(d["reason"].split(":")[0] for d in self.records if d["stage"] == stage))


class StageLog:
    """The stages of a build in order, its drops (in `folder/drops.jsonl`) and its notes."""

    def __init__(self, folder: Path, on_stage: Callable[[Stage], None] | None = None) -> None:
        self.drops = DropLog(folder / DROPS)
        self.stages: list[Stage] = []
        self.notes: list[str] = []
        self.on_stage = on_stage

    def drop(self, stage: str, item: str, reason: str) -> None:
        self.drops.add(stage, item, reason)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def close(self, name: str, unit: str, before: int, after: int) -> Stage:
        """Record a finished stage with the drops logged under its name."""
        stage = Stage(name, unit, before, after, self.drops.reasons(name))
        self.stages.append(stage)
        if self.on_stage:
            self.on_stage(stage)
        return stage


def stage_report(title: str, stages: list[Stage], notes: list[str], reused: int) -> str:
    """`report.md`: a table of the stages, the count of reused model steps and the notes."""
    lines = [
        f"# {title}: counts per stage",
        "",
        "| stage | unit | in | out | dropped (by reason) |",
        "|---|---|---|---|---|",
    ]
    for stage in stages:
        reasons = "; ".join(f"{reason}: {count}" for reason, count in sorted(stage.dropped.items())) or "-"
        lines.append(f"| {stage.name} | {stage.unit} | {stage.before} | {stage.after} | {reasons} |")
    lines += [
        "",
        f"Model steps reused from an earlier run: {reused}.",
        "Every drop is listed in drops.jsonl.",
    ]
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def write_stage_report(folder: Path, title: str, log: StageLog, reused: int) -> None:
    """`stages.json` and `report.md` in `folder` (the build folder beside `drops.jsonl`)."""
    stages = {"stages": [s.as_dict() for s in log.stages], "notes": log.notes}
    write_text_atomic(folder / "stages.json", json.dumps(stages, indent=1) + "\n")
    write_text_atomic(folder / "report.md", stage_report(title, log.stages, log.notes, reused))


class NothingBuilt(InputError):
    """A build (or labelling) ended with nothing to write: every item was dropped. The message
    says where the reasons are (`drops.jsonl`, `report.md`) and sums them up by stage."""


def nothing_built(log: StageLog, what: str = "question") -> NothingBuilt:
    """The error of a build that kept no `what`: its drops by stage and reason (the first items
    of each), and the files that list them all."""
    groups: dict[tuple[str, str], list[str]] = {}
    for record in log.drops.records:
        groups.setdefault((record["stage"], record["reason"].split(":")[0]), []).append(record["item"])
    summary = "; ".join(
        f"{stage}: {reason} x{len(items)} ({', '.join(items[:3])}{', ...' if len(items) > 3 else ''})"
        for (stage, reason), items in groups.items()
    )
    folder = log.drops.path.parent
    return NothingBuilt(
        f"nothing was built: no {what} survived ({summary or 'no input item'}). Every drop and its "
        f"reason: {log.drops.path}; counts per stage: {folder / 'report.md'}"
    )
