"""Append-only JSONL logs that people's actions go to (review decisions, answers, annotations).

Every record carries a `request_id` made by the client. Appending is:
- idempotent: a record whose request id is already in the file is not written again (a request
  retried after a lost reply, or resent after the server was killed, is written once);
- durable: the line is written in one call and fsynced before the call returns;
- safe across threads and processes: writers hold an exclusive `flock` on the file and first
  read what others appended since, so the request ids and any check see every line.
A last line cut short by a kill is cut off by the next writer, never parsed as a record.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

Record = dict[str, Any]


class LogError(ValueError):
    """A complete line of the log is not a JSON object (the file was edited by hand)."""


class RequestLog:
    """One append-only JSONL file of records with a `request_id` each."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._records: list[Record] = []
        self._by_request: dict[str, Record] = {}
        self._offset = 0  # bytes of the file read so far (whole lines only)

    def _catch_up(self, handle: Any, *, writer: bool) -> None:
        handle.seek(self._offset)
        data = handle.read()
        used = 0
        for raw in data.splitlines(keepends=True):
            if not raw.endswith(b"\n"):
                if writer:  # a line a kill left half-written: no process is writing it now
                    handle.truncate(self._offset + used)
                break
            try:
                record = json.loads(raw)
            except ValueError:
                record = None
            if not isinstance(record, dict):
                raise LogError(f"{self.path}:{len(self._records) + 1}: not a JSON object line")
            self._records.append(record)
            if isinstance(record.get("request_id"), str):
                self._by_request.setdefault(record["request_id"], record)
            used += len(raw)
        self._offset += used

    def records(self) -> list[Record]:
        """Every complete record, in the order written."""
        with self._lock:
            if not self.path.exists():
                return list(self._records)
            with open(self.path, "rb") as handle:
                fcntl.flock(handle, fcntl.LOCK_SH)
                self._catch_up(handle, writer=False)
            return list(self._records)

    def append(
        self,
        record: Record,
        *,
        check: Callable[[list[Record]], None] | None = None,
        then: Callable[[list[Record]], None] | None = None,
    ) -> tuple[Record, bool]:
        """Write `record` unless its request id is in the file already; returns (the stored
        record, whether it was written now). `check(records)` runs first, under the lock, and
        may raise to refuse the record; `then(records)` runs after the write, still under the
        lock (e.g. to write a file derived from the log)."""
        if not isinstance(record.get("request_id"), str):
            raise ValueError("a record needs a request_id")
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            created = not self.path.exists()
            with open(self.path, "a+b") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                self._catch_up(handle, writer=True)
                earlier = self._by_request.get(record["request_id"])
                if earlier is not None:
                    return earlier, False
                if check is not None:
                    check(self._records)
                line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())
                self._offset += len(line)
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
