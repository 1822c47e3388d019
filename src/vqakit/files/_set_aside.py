"""Setting a log's unreadable lines aside, on request only (`--set-aside-bad-lines`): each moved,
byte for byte, into the quarantine file beside its log (`set_aside_path`), where it is kept,
listed and counted (`set_aside_counts`); see `vqakit.files._logs` for the policy."""

from __future__ import annotations

import base64
import fcntl
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vqakit.files._atomic import write_atomic
from vqakit.files._gc import collector_paused
from vqakit.files._logs import (
    LISTED,
    SET_ASIDE_SUFFIX,
    LogAppender,
    LogContents,
    Parser,
    parse_lines,
    set_aside_path,
)


@dataclass(frozen=True)
class SetAside:
    """Lines moved out of `log` into `into` (their line numbers in the log as it was, and why)."""

    log: Path
    into: Path
    lines: list[tuple[int, str]]

    def __str__(self) -> str:
        listed = ", ".join(f"{line} ({reason})" for line, reason in self.lines[:LISTED])
        more = f" and {len(self.lines) - LISTED} more" if len(self.lines) > LISTED else ""
        count = len(self.lines)
        return f"set aside {count} unreadable line(s) of {self.log} into {self.into}: line {listed}{more}"


def set_aside_bad_lines(path: str | Path, parse: Parser) -> SetAside | None:
    """Move every complete line of the log at `path` that `parse` cannot read into its
    quarantine file (`set_aside_path`), each as `{"line", "reason", "text"}` (`"base64"`
    instead of `"text"` for bytes that are not UTF-8) with `set_aside_at`, appended and synced
    before the log is replaced, in one rename, by its other lines byte for byte (a kill in
    between leaves a line in both files, never in neither). Returns what was moved, None when
    every line reads. The caller keeps other writers of the log away (a run folder's lock);
    an exclusive `flock` on the log is held meanwhile, so a writer that takes one must check
    after locking that its handle is still the file at `path`."""
    path = Path(path)
    if not path.is_file():
        return None
    with open(path, "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        raw = handle.read()
        bad: list[tuple[int, int, int, str]] = []
        with collector_paused():
            for number, start, stop, _record, problem in parse_lines(raw, parse):
                last = stop == len(raw) and not raw.endswith(b"\n")
                if problem is not None and not last:
                    bad.append((number, start, stop, problem))
        if not bad:
            return None
        into = set_aside_path(path)
        at = datetime.now(UTC).isoformat(timespec="seconds")
        entries = [
            _quarantined(path, number, raw[start:stop], reason, at) for number, start, stop, reason in bad
        ]
        LogAppender(LogContents(into, end=into.stat().st_size if into.exists() else 0)).append(entries)
        kept, cursor = [], 0
        for _number, start, stop, _reason in bad:
            kept.append(raw[cursor:start])
            cursor = stop
        kept.append(raw[cursor:])
        write_atomic(path, lambda out: out.write(b"".join(kept)))
    return SetAside(path, into, [(number, reason) for number, _start, _stop, reason in bad])


def _quarantined(log: Path, number: int, line: bytes, reason: str, at: str) -> str:
    record: dict[str, Any] = {"log": log.name, "line": number, "reason": reason}
    body = line[:-1] if line.endswith(b"\n") else line
    try:
        record["text"] = body.decode("utf-8")
    except UnicodeDecodeError:
        record["base64"] = base64.b64encode(body).decode("ascii")
    record["set_aside_at"] = at
    return json.dumps(record, ensure_ascii=False)


def set_aside_counts(folder: str | Path) -> dict[str, int]:
    """{log name: lines set aside} for each quarantine file in `folder` (results.json
    `set_aside`); a quarantine file is counted by its lines, whatever they hold."""
    counts: dict[str, int] = {}
    folder = Path(folder)
    if not folder.is_dir():
        return counts
    for quarantine in sorted(folder.glob(f"*{SET_ASIDE_SUFFIX}")):
        try:
            lines = quarantine.read_bytes().count(b"\n")
        except OSError:
            continue
        if lines:
            counts[quarantine.name.removesuffix(SET_ASIDE_SUFFIX) + ".jsonl"] = lines
    return counts
