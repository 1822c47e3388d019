"""Annotate mode: questions written over a folder of videos, which becomes a benchmark folder.

Every save or delete is a line of `annotate/changes.jsonl` (who, when, the whole sample; append
only, request ids make a resent save a no-op). After each one, under the log's lock,
`samples.jsonl` is written again from the log (the latest save of each sample id, deletes
removed) and `benchmark.yaml` is created if the folder has none, so the folder is a benchmark
that `vqakit validate`, `vqakit eval` (`--method hints`, object recall, the rubric judge) read
like any other. A folder that already has samples.jsonl but no annotation log is refused: the
studio never rewrites a benchmark it did not write.

Checks run on every draft (`check_draft`): the sample's own validation, its video (a file of the
folder) and window, the trace's times within the video, object ids in the `name-<16 hex>` form
our trace reader reads back, boxes inside the frame, and warnings for objects named in the trace
without a box or boxed without being named.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from vqakit.builders import VIDEO_SUFFIXES
from vqakit.files import slug, write_text_atomic
from vqakit.schema import CARD, SAMPLES, Sample, find_objects, parse_trace
from vqakit.studio._jsonlog import RequestLog
from vqakit.studio._review import REQUEST_ID

LOG = Path("annotate") / "changes.jsonl"
ANNOTATION_HINT = (
    "Mend or remove these lines by hand (vqakit never deletes them): samples.jsonl is written from "
    "every line of the log, so nothing more is saved until then."
)
_NOT_MEDIA = {"annotate", "review", "build", "runs", "corpus"}


class AnnotateError(ValueError):
    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class ChangeBody(BaseModel):
    """What a client sends to `POST /api/annotate/{sample_id}`."""

    model_config = ConfigDict(extra="forbid", strict=True)

    action: Literal["save", "delete"] = "save"
    sample: dict[str, Any] | None = None
    request_id: str = Field(pattern=REQUEST_ID)


class Change(BaseModel):
    """One line of annotate/changes.jsonl: a save (the whole sample) or a delete."""

    model_config = ConfigDict(extra="forbid")

    request_id: str
    person: str
    time: str
    action: Literal["save", "delete"]
    sample_id: str
    sample: dict[str, Any] | None

    @model_validator(mode="after")
    def _saved(self) -> Change:
        if (self.action == "save") != isinstance(self.sample, dict):
            raise ValueError("sample: a save holds the sample, a delete none")
        return self


_LABELS = {
    "id": "id",
    "question": "question",
    "choices": "options",
    "reasoning": "reasoning trace",
    "videos": "video",
    "objects": "objects",
    "metadata": "category and skills",
}


def _union_tag(part: Any) -> bool:
    """Whether a part of an error's location names a member of a union type, not a field."""
    return isinstance(part, str) and (part in ("int", "str", "float", "bool") or "-" in part or "[" in part)


def draft_problems(error: ValidationError, draft: dict[str, Any]) -> list[str]:
    """The validation problems of a draft as an author reads them: the form's names for the
    fields, and what to do ("question: write the question"), one line per field."""
    found: dict[str, str] = {}
    mcq = draft.get("choices") is not None
    for problem in error.errors():
        loc = [part for part in problem["loc"] if not _union_tag(part)]
        top = str(loc[0]) if loc else "sample"
        if top == "answer":
            found.setdefault(
                "answer", "gold: choose the gold option" if mcq else "reference answer: write the answer"
            )
            continue
        label = _LABELS.get(top, top)
        where = label + "".join(f" {part + 1}" if isinstance(part, int) else f" {part}" for part in loc[1:])
        kind, context = problem["type"], problem.get("ctx") or {}
        if kind == "string_too_short":
            text = f"write the {label}" if len(loc) == 1 else "is empty"
        elif kind == "missing":
            text = "is missing"
        elif kind == "too_short":
            text = f"give at least {context.get('min_length')}"
        elif kind in ("too_long", "string_too_long"):
            text = f"too long (at most {context.get('max_length')})"
        else:
            text = str(problem["msg"]).removeprefix("Value error, ")
        found.setdefault(where, f"{where}: {text}")
    return list(found.values())


@dataclass
class Checked:
    sample: Sample | None
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@lru_cache(maxsize=256)
def _probe(path: str, stamp: tuple[int, int]) -> tuple[float, int, int]:
    from vqakit.video import probe

    info = probe(path)
    width, height = info.display_size
    return info.duration_s, width, height


def annotatable(root: Path) -> bool:
    """A folder the studio may write samples into: no samples.jsonl, or one it wrote."""
    return root.is_dir() and ((root / LOG).is_file() or not (root / SAMPLES).exists())


class AnnotationFolder:
    def __init__(self, root: Path) -> None:
        if not annotatable(root):
            raise ValueError(
                f"{root} holds a benchmark that was not written in the studio; annotate a folder of "
                "videos (or a copy of this one without samples.jsonl)"
            )
        self.root = root
        self.log = RequestLog(root / LOG, Change, hint=ANNOTATION_HINT)
        self._lock = threading.Lock()

    def videos(self) -> list[str]:
        """Every video file of the folder, relative to it."""
        return [
            path.relative_to(self.root).as_posix()
            for path in sorted(self.root.rglob("*"))
            if path.is_file()
            and path.suffix.lower() in VIDEO_SUFFIXES
            and not (set(path.relative_to(self.root).parts[:-1]) & _NOT_MEDIA)
            and not any(part.startswith(".") for part in path.relative_to(self.root).parts)
        ]

    def video_info(self, relative: str) -> tuple[float, int, int]:
        """(duration in seconds, displayed width, height) of one of the folder's videos."""
        if relative not in self.videos():
            raise ValueError(f"{relative!r} is not a video of {self.root}")
        path = self.root / relative
        stat = path.stat()
        return _probe(str(path), (stat.st_mtime_ns, stat.st_size))

    def samples(self) -> list[dict[str, Any]]:
        return _merged(self.log.records())

    def problems(self) -> list[str]:
        """`FILE:LINE: reason` of the lines of the annotation log that cannot be read: until
        they are mended nothing is saved (samples.jsonl is written from every line of the
        log)."""
        return self.log.problems()

    def check_draft(self, draft: dict[str, Any]) -> Checked:
        try:
            sample = Sample.model_validate(draft)
        except ValidationError as error:
            return Checked(None, draft_problems(error, draft))
        checked = Checked(sample)
        if len(sample.videos) != 1:
            checked.problems.append("videos: a question here is about exactly one video of the folder")
            return checked
        ref = sample.videos[0]
        try:
            duration, width, height = self.video_info(ref.path)
        except ValueError as error:
            checked.problems.append(f"videos.0.path: {error}")
            return checked
        for name, value in (("start_s", ref.start_s), ("end_s", ref.end_s)):
            if value is not None and value > duration + 1e-3:
                checked.problems.append(f"videos.0.{name}: {value:g}s is after the end ({duration:.2f}s)")
        _check_trace(sample, duration, width, height, checked)
        return checked

    def next_id(self, video: str) -> str:
        taken = {s["id"] for s in self.samples()}
        stem = slug(Path(video).stem, 40, empty="q")
        number = 1
        while f"{stem}-q{number}" in taken:
            number += 1
        return f"{stem}-q{number}"

    def change(self, person: str, sample_id: str, body: ChangeBody) -> tuple[dict[str, Any], bool]:
        """Append a save (checked: AnnotateError lists the problems) or a delete."""
        sample = None
        if body.action == "save":
            draft = {**(body.sample or {}), "id": sample_id}
            checked = self.check_draft(draft)
            if checked.problems or checked.sample is None:
                raise AnnotateError(checked.problems)
            sample = checked.sample.model_dump(mode="json", exclude_defaults=True)
        elif sample_id not in {s["id"] for s in self.samples()}:
            raise AnnotateError([f"id: no sample {sample_id!r} to delete"])
        record = {
            "request_id": body.request_id,
            "person": person,
            "time": datetime.now(UTC).isoformat(timespec="milliseconds"),
            "action": body.action,
            "sample_id": sample_id,
            "sample": sample,
        }
        with self._lock:
            return self.log.append(record, then=self._write_folder, refuse_damaged=True)

    def _write_folder(self, records: list[dict[str, Any]]) -> None:
        lines = "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in _merged(records))
        write_text_atomic(self.root / SAMPLES, lines)
        if not (self.root / CARD).exists():
            card = {
                "name": slug(self.root.resolve().name, 100, empty="annotated"),
                "version": "0.1.0",
                "license": "unspecified (set the license of these annotations here)",
                "description": "Questions written in vqakit studio over the videos of this folder.",
            }
            write_text_atomic(self.root / CARD, yaml.safe_dump(card, sort_keys=False))


def _merged(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The latest save of each sample id, in the order ids first appeared; deletes removed."""
    found: dict[str, dict[str, Any] | None] = {}
    for record in records:
        found[str(record.get("sample_id"))] = record.get("sample") if record.get("action") == "save" else None
    return [sample for sample in found.values() if sample is not None]


def _check_trace(sample: Sample, duration: float, width: int, height: int, checked: Checked) -> None:
    tracks = {track.id: track for track in sample.objects}
    named: set[str] = set()
    if sample.reasoning:
        steps = parse_trace(sample.reasoning)
        for step in steps:
            late = [max(times) for times in step.times_s if max(times) > duration + 1e-3]
            if late:
                checked.problems.append(
                    f"reasoning: step {step.number}: {late[0]:g}s is after the end ({duration:.2f}s)"
                )
            named.update(ref.id for ref in step.objects)
        if not any(step.times_s for step in steps):
            checked.warnings.append("reasoning: the trace gives no timestamp (MM:SS)")
        if not named:
            checked.warnings.append("reasoning: the trace names no object")
    for object_id in sorted(named - set(tracks)):
        checked.warnings.append(f"reasoning: {object_id} is named in the trace but has no box")
    for object_id, track in tracks.items():
        if [ref.id for ref in find_objects(object_id)] != [object_id]:
            checked.problems.append(
                f"objects: {object_id!r} is not read back as one object id by the trace reader"
            )
        if object_id not in named:
            checked.warnings.append(f"objects: {object_id} has boxes but is not named in the trace")
        for point in track.points:
            if point.time_s > duration + 1e-3:
                checked.problems.append(f"objects: {object_id} at {point.time_s:g}s is after the end")
            if point.box is not None:
                x0, y0, x1, y1 = point.box
                if x0 < -1 or y0 < -1 or x1 > width + 1 or y1 > height + 1:
                    checked.problems.append(
                        f"objects: {object_id} at {point.time_s:g}s: box {list(point.box)} is outside "
                        f"the {width}x{height} frame"
                    )
