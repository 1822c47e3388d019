"""Review decisions: one line each in `review/<person>.jsonl`, appended, never rewritten.

A decision is `keep`, `drop` (with a reason from `DROP_REASONS` and optional free text) or
`edit` (new values for some of `EDITABLE`). A person's later decision on a sample supersedes
their earlier one; nothing in the benchmark is changed (`vqakit review apply` writes a new
version). Each line records the content hash of the benchmark version it was made on and the
digest of the sample as the person saw it (`sample_digest`), so that `review apply` can tell a
decision on a sample that has changed since (stale) from one on the sample as it is.

Every request carries a `request_id` made by the client (8 to 80 of `A-Z a-z 0-9 _ -`): a
request retried after a lost reply is then written once.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vqakit.benchmarks import BUILT_IN_NAMES
from vqakit.schema import Sample
from vqakit.studio._jsonlog import RequestLog
from vqakit.studio._people import check_person

DROP_REASONS = {
    "wrong-gold": "the gold answer is wrong",
    "ambiguous": "ambiguous: more than one option fits, or the question is unclear",
    "blind": "answerable without the video",
    "not-in-video": "the video does not show what the question needs",
    "bad-options": "the wrong options are implausible, or one gives the answer away",
    "duplicate": "duplicate of another question",
    "unsafe": "offensive, private or unsafe content",
    "other": "other (say why in the note)",
}
EDITABLE = ("question", "choices", "answer", "reasoning", "category", "skills")
REQUEST_ID = r"^[A-Za-z0-9_-]{8,80}$"


class EditError(ValueError):
    """An edit that would make an invalid sample; `problems` lists each as `field: message`."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("; ".join(problems))


class DecisionBody(BaseModel):
    """What a client sends to `POST /api/review/{sample_id}`."""

    model_config = ConfigDict(extra="forbid")

    decision: Literal["keep", "drop", "edit"]
    reason: str | None = None
    note: str | None = Field(None, max_length=4000)
    edit: dict[str, Any] | None = None
    request_id: str = Field(pattern=REQUEST_ID)

    @field_validator("edit")
    @classmethod
    def _editable(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            unknown = sorted(set(value) - set(EDITABLE))
            if unknown:
                raise ValueError(f"cannot edit {', '.join(unknown)}; editable: {', '.join(EDITABLE)}")
        return value

    @model_validator(mode="after")
    def _complete(self) -> DecisionBody:
        if self.decision == "drop":
            if self.reason not in DROP_REASONS:
                raise ValueError(f"reason: a drop needs one of {', '.join(DROP_REASONS)}")
            if self.reason == "other" and not (self.note or "").strip():
                raise ValueError("note: say why, for the reason 'other'")
        if self.decision == "edit" and not self.edit:
            raise ValueError("edit: an edit needs the new values")
        if self.decision != "edit" and self.edit:
            raise ValueError(f"edit: only an edit decision carries new values, not {self.decision}")
        return self


class Decision(BaseModel):
    """One line of review/<person>.jsonl."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    request_id: str
    sample_id: str
    person: str
    decision: Literal["keep", "drop", "edit"]
    reason: str | None = None
    note: str | None = None
    edit: dict[str, Any] | None = None
    benchmark_hash: str
    sample_hash: str | None = None  # `sample_digest` of the sample decided on (None: older logs)
    time: str  # ISO 8601, UTC, the server's clock


def sample_digest(sample: Sample) -> str:
    """The content digest of one sample (every field, in a canonical JSON form)."""
    text = json.dumps(sample.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def edited_sample(sample: Sample, edit: dict[str, Any]) -> Sample:
    """The sample with an edit's values, validated (EditError lists what is wrong)."""
    data = sample.model_dump(mode="json")
    metadata = dict(data.get("metadata") or {})
    for key, value in edit.items():
        if key in ("category", "skills"):
            metadata[key] = value if key == "category" else list(value or [])
        elif key == "reasoning" and not value:
            data[key] = None
        else:
            data[key] = value
    data["metadata"] = metadata
    try:
        return Sample.model_validate(data)
    except ValidationError as error:
        raise EditError(validation_problems(error)) from None


def validation_problems(error: ValidationError) -> list[str]:
    """Each problem of a validation error as `field: message`."""
    found = []
    for problem in error.errors():
        where = ".".join(str(part) for part in problem["loc"]) or "sample"
        found.append(f"{where}: {str(problem['msg']).removeprefix('Value error, ')}")
    return found


def review_folder(bench: str | Path, root: Path, given: Path | None = None) -> Path:
    """Where review logs go: `given`, else `<benchmark folder>/review`, or for a benchmark
    shipped inside vqakit `./review/<name>` (the package folder is not for writing)."""
    if given is not None:
        return given
    if str(bench) in BUILT_IN_NAMES and not Path(bench).is_dir():
        return Path("review") / str(bench)
    return root / "review"


class ReviewStore:
    """The review logs of one benchmark version (a folder of `<person>.jsonl`)."""

    def __init__(self, folder: Path, benchmark_hash: str) -> None:
        self.folder = folder
        self.benchmark_hash = benchmark_hash
        self._logs: dict[str, RequestLog] = {}

    def _log(self, person: str) -> RequestLog:
        check_person(person)
        if person not in self._logs:
            self._logs[person] = RequestLog(self.folder / f"{person}.jsonl")
        return self._logs[person]

    def record(self, person: str, sample: Sample, body: DecisionBody) -> tuple[Decision, bool]:
        """Append a person's decision (EditError when an edit makes an invalid sample); returns
        it and whether it was written now (False: that request id was written before)."""
        if body.edit:
            edited_sample(sample, body.edit)
        decision = Decision(
            request_id=body.request_id,
            sample_id=sample.id,
            person=person,
            decision=body.decision,
            reason=body.reason,
            note=(body.note or "").strip() or None,
            edit=body.edit,
            benchmark_hash=self.benchmark_hash,
            sample_hash=sample_digest(sample),
            time=datetime.now(UTC).isoformat(timespec="milliseconds"),
        )
        stored, written = self._log(person).append(decision.model_dump(mode="json"))
        return Decision.model_validate(stored), written

    def people(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("*.jsonl")):
            try:
                found.append(check_person(path.stem))
            except ValueError:
                continue
        return found

    def history(self, person: str) -> list[Decision]:
        return [Decision.model_validate(r) for r in self._log(person).records()]

    def latest(self) -> dict[str, dict[str, Decision]]:
        """{person: {sample id: their latest decision}}."""
        found: dict[str, dict[str, Decision]] = {}
        for person in self.people():
            mine = found.setdefault(person, {})
            for decision in self.history(person):
                mine[decision.sample_id] = decision
        return found
