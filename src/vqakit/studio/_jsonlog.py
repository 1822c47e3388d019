"""Append-only JSONL logs that people's actions go to (review decisions, answers, annotations).

Every record carries a `request_id` made by the client. Appending is:
- idempotent: a record whose request id is already in the file is not written again (a request
  retried after a lost reply, or resent after the server was killed, is written once);
- durable: the line is written in one call and fsynced before the call returns;
- safe across threads and processes: writers hold an exclusive `flock` on the file and first
  read what others appended since, so the request ids and any check see every line.

What is never done (the policy of every log of vqakit): a complete line is never deleted. Only a
last line cut short by a kill (no newline at its end) is cut off, and only by the next writer;
readers leave it alone and do not count it. A complete line that cannot be read (not JSON, not an
object, a value of the wrong type: edited by hand) is skipped by the reader and kept in the file,
and named with its file and line as an `InputProblem`; so is a log that cannot be opened (a
folder in its place). `problems()` lists them, `records(strict=True)` raises `LogError` (an
`InputError`) naming each. Whether a writer may append after such a line is the caller's choice
(`append(..., refuse_damaged=True)`): appending loses nothing, but a state derived from every line
(an annotated folder's samples, a participant's answered questions) would be wrong without it.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from vqakit.files import InputError, InputProblem, find_unusable, parse_json

Record = dict[str, Any]


class LogError(InputError):
    """Lines of a people's log that cannot be read, or a log that cannot be opened; `problems`
    names each (file and line). Nothing was deleted: the lines are left for a person to fix."""

    def __init__(self, problems: list[InputProblem]) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"{shown}{more}: fix or remove these lines by hand (vqakit never deletes them)")


def line_problem(
    path: Path, number: int | None, raw: bytes, model: type[BaseModel] | None
) -> tuple[Record | None, InputProblem | None]:
    """(the record of one complete line, or the problem that keeps it out)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return None, InputProblem(str(path), number, message=f"not UTF-8 text (byte {error.start})")
    try:
        record = parse_json(text)
    except ValueError as error:
        return None, InputProblem(str(path), number, message=f"not JSON: {error}")
    if not isinstance(record, dict):
        return None, InputProblem(str(path), number, message="not a JSON object")
    unusable = find_unusable(record)
    if unusable is not None:
        return None, InputProblem(str(path), number, field=unusable[0], message=unusable[1])
    if model is not None:
        try:
            model.model_validate(record)
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "-"
            return None, InputProblem(str(path), number, field=where, message=str(first["msg"]))
    return record, None


class RequestLog:
    """One append-only JSONL file of records with a `request_id` each; `model` (a pydantic
    model) is what each line must be, else the line is a problem, not a record."""

    def __init__(self, path: Path, model: type[BaseModel] | None = None) -> None:
        self.path = path
        self.model = model
        self._lock = threading.Lock()
        self._reset()

    def _reset(self) -> None:
        self._records: list[Record] = []
        self._by_request: dict[str, Record] = {}
        self._problems: list[InputProblem] = []
        self._offset = 0  # bytes of the file read so far (whole lines only)
        self._lines = 0  # complete lines read so far
        self._opened: InputProblem | None = None  # why the file cannot be opened, if it cannot
        self._file: tuple[int, int] = (0, 0)  # (device, inode) of the file read
        self._tail = b""  # the last bytes read: unchanged, unless the file was edited
        self._mtime = 0  # modification time when last read

    def _unchanged(self, handle: Any) -> bool:
        """Whether what was read of the file is still there: the same file (not replaced), as
        long, ending with the same bytes (a line fixed by hand is read again from the start)."""
        stat = os.fstat(handle.fileno())
        if (stat.st_dev, stat.st_ino) != self._file or stat.st_size < self._offset:
            return False
        if stat.st_size == self._offset and stat.st_mtime_ns != self._mtime:
            return False  # written since without growing: edited in place
        handle.seek(self._offset - len(self._tail))
        return handle.read(len(self._tail)) == self._tail

    def _catch_up(self, handle: Any, *, writer: bool) -> None:
        if self._offset and not self._unchanged(handle):
            self._reset()
        stat = os.fstat(handle.fileno())
        self._file = (stat.st_dev, stat.st_ino)
        handle.seek(self._offset)
        data = handle.read()
        used = 0
        for raw in data.splitlines(keepends=True):
            if not raw.endswith(b"\n"):
                if writer:  # a line a kill left half-written: no process is writing it now
                    handle.truncate(self._offset + used)
                break
            self._lines += 1
            used += len(raw)
            record, problem = line_problem(self.path, self._lines, raw, self.model)
            if problem is not None:
                self._problems.append(problem)
                continue
            assert record is not None
            self._records.append(record)
            if isinstance(record.get("request_id"), str):
                self._by_request.setdefault(record["request_id"], record)
        self._offset += used
        self._tail = (self._tail + data[:used])[-64:]
        self._mtime = os.fstat(handle.fileno()).st_mtime_ns

    def _unopenable(self, error: OSError) -> InputProblem:
        if self.path.is_dir():
            why = "is a folder, not a log file"
        else:
            why = f"cannot be read: {error.strerror or error}"
        return InputProblem(str(self.path), None, message=why)

    def _read(self) -> None:
        self._opened = None
        if not self.path.exists() and not self.path.is_symlink():
            self._reset()  # removed: nothing of it is known any more
            return
        try:
            with open(self.path, "rb") as handle:
                fcntl.flock(handle, fcntl.LOCK_SH)
                self._catch_up(handle, writer=False)
        except OSError as error:
            self._opened = self._unopenable(error)

    def records(self, *, strict: bool = False) -> list[Record]:
        """Every readable complete record, in the order written; with `strict`, LogError when
        any line (or the file) cannot be read."""
        with self._lock:
            self._read()
            problems = self._all_problems()
            records = list(self._records)
        if strict and problems:
            raise LogError(problems)
        return records

    def problems(self) -> list[InputProblem]:
        """The lines that cannot be read (file and line each), or the file itself."""
        with self._lock:
            self._read()
            return self._all_problems()

    def _all_problems(self) -> list[InputProblem]:
        return ([self._opened] if self._opened else []) + list(self._problems)

    def append(
        self,
        record: Record,
        *,
        check: Callable[[list[Record]], None] | None = None,
        then: Callable[[list[Record]], None] | None = None,
        refuse_damaged: bool = False,
    ) -> tuple[Record, bool]:
        """Write `record` unless its request id is in the file already; returns (the stored
        record, whether it was written now). `check(records)` runs first, under the lock, and
        may raise to refuse the record; `then(records)` runs after the write, still under the
        lock (e.g. to write a file derived from the log). LogError when the file cannot be
        opened, or, with `refuse_damaged`, when one of its lines cannot be read."""
        if not isinstance(record.get("request_id"), str):
            raise ValueError("a record needs a request_id")
        with self._lock:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                created = not self.path.exists()
                handle = open(self.path, "a+b")  # noqa: SIM115 - closed below, after the lock
            except OSError as error:
                raise LogError([self._unopenable(error)]) from None
            with handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                self._opened = None
                self._catch_up(handle, writer=True)
                earlier = self._by_request.get(record["request_id"])
                if earlier is not None:
                    return earlier, False
                if refuse_damaged and self._problems:
                    raise LogError(list(self._problems))
                if check is not None:
                    check(self._records)
                line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
                self._offset += len(line)
                self._tail = (self._tail + line)[-64:]
                self._mtime = os.fstat(handle.fileno()).st_mtime_ns
                self._lines += 1
                self._records.append(record)
                self._by_request[record["request_id"]] = record
                if created:
                    _sync_folder(self.path.parent)
                if then is not None:
                    then(self._records)
            return record, True


def _sync_folder(folder: Path) -> None:
    """Make a new file's name durable (its folder's entry), not only its bytes."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
