"""Review decisions: one line each in `review/<person>.jsonl`, appended, never rewritten.

A decision is `keep`, `drop` (with a reason from `DROP_REASONS` and optional free text) or
`edit` (new values for some of `EDITABLE`). A person's later decision on a sample supersedes
their earlier one; nothing in the benchmark is changed (`vqakit review apply` writes a new
version). Each line records the content hash of the benchmark version it was made on and the
digest of the sample as the person saw it (`sample_digest`), so that `review apply` can tell a
decision on a sample that has changed since (stale) from one on the sample as it is.

Every request carries a `request_id` made by the client (8 to 80 of `A-Z a-z 0-9 _ -`): a
request retried after a lost reply is then written once.

The logs are read by vqakit's one log reader (`vqakit.studio._jsonlog`): a line that cannot be
read is kept and named (`BadLogLines`); `vqakit review` and `review apply` refuse to count
around it unless asked to set it aside (`ReviewStore.set_aside_bad_lines`: moved into
`<person>.set-aside.jsonl` beside the log, kept and listed).
"""

from __future__ import annotations

import hashlib
import json
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
    model_validator,
)

from vqakit.benchmarks import BUILT_IN_NAMES
from vqakit.files import (
    SET_ASIDE_OPTION,
    BadLogLines,
    SetAside,
    UnreadableLog,
    is_set_aside_file,
    set_aside_bad_lines,
    set_aside_counts,
)
from vqakit.schema import Sample
from vqakit.studio._jsonlog import RequestLog, record_parser
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


NOTE_LENGTH = 4000
TEXT_LENGTH = 20000  # a question, an option, a reasoning trace
NAME_LENGTH = 200  # a category, a skill


class EditBody(BaseModel):
    """The new values of an edit: each field a reviewer may change, with its type and length."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question: str | None = Field(None, min_length=1, max_length=TEXT_LENGTH)
    choices: list[Annotated[str, StringConstraints(min_length=1, max_length=TEXT_LENGTH)]] | None = Field(
        None, min_length=2, max_length=26
    )
    answer: (
        Annotated[int, Field(ge=0, le=25)]
        | Annotated[str, Field(min_length=1, max_length=TEXT_LENGTH)]
        | None
    ) = None
    reasoning: str | None = Field(None, max_length=TEXT_LENGTH)
    category: str | None = Field(None, max_length=NAME_LENGTH)
    skills: list[Annotated[str, StringConstraints(min_length=1, max_length=NAME_LENGTH)]] | None = Field(
        None, max_length=100
    )

    @model_validator(mode="before")
    @classmethod
    def _editable(cls, value: Any) -> Any:
        if isinstance(value, dict):
            unknown = sorted(str(key) for key in set(value) - set(EDITABLE))
            if unknown:
                raise ValueError(f"cannot edit {', '.join(unknown)}; editable: {', '.join(EDITABLE)}")
        return value

    def given(self) -> dict[str, Any]:
        """The fields the reviewer set (None: cleared), as the log keeps them."""
        return self.model_dump(mode="json", exclude_unset=True)


class DecisionBody(BaseModel):
    """What a client sends to `POST /api/review/{sample_id}` (and `/api/adjudicate/...`)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    decision: Literal["keep", "drop", "edit"]
    reason: str | None = Field(None, max_length=40)
    note: str | None = Field(None, max_length=NOTE_LENGTH)
    edit: EditBody | None = None
    request_id: str = Field(pattern=REQUEST_ID)

    @model_validator(mode="after")
    def _complete(self) -> DecisionBody:
        if self.decision == "drop":
            if self.reason not in DROP_REASONS:
                raise ValueError(f"reason: a drop needs one of {', '.join(DROP_REASONS)}")
            if self.reason == "other" and not (self.note or "").strip():
                raise ValueError("note: say why, for the reason 'other'")
        elif self.reason is not None:
            raise ValueError(f"reason: only a drop has a reason, not {self.decision}")
        edit = self.edit.given() if self.edit is not None else {}
        if self.decision == "edit" and not edit:
            raise ValueError("edit: an edit needs the new values")
        if self.decision != "edit" and edit:
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
    adjudication: bool = False  # made in adjudicate mode: final for `review apply`

    @field_validator("edit")
    @classmethod
    def _typed_edit(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        return None if value is None else EditBody.model_validate(value).given()

    def line(self) -> dict[str, Any]:
        """The record as a log line (`adjudication` only where it is one)."""
        data = self.model_dump(mode="json")
        if not self.adjudication:
            data.pop("adjudication")
        return data


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
    except (TypeError, ValueError) as error:  # a value of the wrong kind in a hand-written line
        raise EditError([f"edit: {error}"]) from None


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


REVIEW_HINT = (
    "Mend or remove these lines, or rerun `vqakit review` (or `review apply`) with "
    f"{SET_ASIDE_OPTION} to move them into <person>.set-aside.jsonl beside their log (kept there, "
    "listed) and count the decisions without them."
)


class ReviewStore:
    """The review logs of one benchmark version (a folder of `<person>.jsonl`). Lines that
    cannot be read are left in their file and listed by `problems()` (file and line each);
    `latest` and `adjudications` read the others, or with `strict` refuse (`BadLogLines`)."""

    def __init__(self, folder: Path, benchmark_hash: str) -> None:
        self.folder = folder
        self.benchmark_hash = benchmark_hash
        self._logs: dict[str, RequestLog] = {}
        self._lock = threading.Lock()

    def _log(self, person: str) -> RequestLog:
        check_person(person)
        with self._lock:
            if person not in self._logs:
                self._logs[person] = RequestLog(self.folder / f"{person}.jsonl", Decision, hint=REVIEW_HINT)
            return self._logs[person]

    def record(
        self, person: str, sample: Sample, body: DecisionBody, *, adjudication: bool = False
    ) -> tuple[Decision, bool]:
        """Append a person's decision (EditError when an edit makes an invalid sample;
        UnreadableLog when their log cannot be opened); returns it and whether it was written
        now (False: that request id was written before)."""
        edit = body.edit.given() if body.edit is not None else None
        if edit:
            edited_sample(sample, edit)
        decision = Decision(
            request_id=body.request_id,
            sample_id=sample.id,
            person=person,
            decision=body.decision,
            reason=body.reason,
            note=(body.note or "").strip() or None,
            edit=edit or None,
            benchmark_hash=self.benchmark_hash,
            sample_hash=sample_digest(sample),
            time=datetime.now(UTC).isoformat(timespec="milliseconds"),
            adjudication=adjudication,
        )
        stored, written = self._log(person).append(decision.line())
        return Decision.model_validate(stored), written

    def people(self) -> list[str]:
        """Everyone with a log here (a folder named like a log counts: `problems` names it;
        quarantine files, `<person>.set-aside.jsonl`, are no one's log)."""
        if not self.folder.is_dir():
            return []
        found = []
        for path in sorted(self.folder.glob("*.jsonl")):
            if is_set_aside_file(path):
                continue
            try:
                found.append(check_person(path.stem))
            except ValueError:
                continue
        return found

    def history(self, person: str, *, strict: bool = False) -> list[Decision]:
        """A person's readable decisions, in the order made (`BadLogLines` with `strict` when a
        line of their log cannot be read)."""
        return [Decision.model_validate(r) for r in self._log(person).records(strict=strict)]

    def problems(self, people: list[str] | None = None) -> list[str]:
        """`FILE:LINE: reason` of every line of these people's logs (default: all) that cannot
        be read (`FILE: reason` for a log that cannot be opened)."""
        return [
            line
            for person in (self.people() if people is None else people)
            for line in self._log(person).problems()
        ]

    def check(self) -> None:
        """Every log reads whole, or the first that cannot be opened (`UnreadableLog`), or
        `BadLogLines` naming every line of every log that cannot be read."""
        found = [p for person in self.people() if (p := self._log(person).problem()) is not None]
        unreadable = [p for p in found if isinstance(p, UnreadableLog)]
        if unreadable:
            raise unreadable[0]
        bad = [p for p in found if isinstance(p, BadLogLines)]
        if bad:
            raise BadLogLines(bad[0].path, bad[0].problems, more=bad[1:], hint=REVIEW_HINT)

    def set_aside_bad_lines(self) -> list[SetAside]:
        """Move the lines of every log here that cannot be read into its quarantine file
        (`vqakit.files.set_aside_bad_lines`; safe while the studio writes: it takes the
        writers' lock)."""
        moved = []
        for person in self.people():
            path = self._log(person).path
            if path.is_file() and (done := set_aside_bad_lines(path, record_parser(Decision))) is not None:
                moved.append(done)
        return moved

    def lines_set_aside(self) -> dict[str, int]:
        """{log name: lines set aside} of the quarantine files here."""
        return set_aside_counts(self.folder)

    def _all(self, strict: bool) -> dict[str, list[Decision]]:
        if strict:
            self.check()
        return {person: self.history(person) for person in self.people()}

    def latest(self, *, strict: bool = False) -> dict[str, dict[str, Decision]]:
        """{person: {sample id: their latest decision}} of the reviewers (adjudications are not
        votes: `adjudications`)."""
        found: dict[str, dict[str, Decision]] = {}
        for person, decisions in self._all(strict).items():
            mine = {d.sample_id: d for d in decisions if not d.adjudication}
            if mine or not any(d.adjudication for d in decisions):
                found[person] = mine
        return found

    def adjudications(self, *, strict: bool = False) -> dict[str, Decision]:
        """{sample id: the latest adjudication made on it} (whoever made it)."""
        found: dict[str, Decision] = {}
        for decisions in self._all(strict).values():
            for decision in decisions:
                if decision.adjudication:
                    earlier = found.get(decision.sample_id)
                    if earlier is None or decision.time >= earlier.time:
                        found[decision.sample_id] = decision
        return found
