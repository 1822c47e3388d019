"""The model steps a build has completed, on disk, so that a killed or failed build resumes where
it stopped.

`calls.jsonl` holds one line per successful model step: its key (step, item and a hash of the
exact request) and the validated result. A resumed build reuses it instead of asking the model
again; failed steps are not recorded, so they are asked again. It is read with the one log
reader (`vqakit.files.read_log`): a last line cut short by a kill is left out (and removed
before the next append); a complete line that cannot be read stops the build with
`BadLogLines` naming it, unless the user has it set aside first (`set_aside_journal_lines`,
`--set-aside-bad-lines`): it is never dropped in silence.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from vqakit.files import LogAppender, SetAside, json_object, read_log, require, set_aside_bad_lines

CALLS = "calls.jsonl"


def parse_call(line: bytes) -> dict[str, Any]:
    """One line of calls.jsonl: exactly `{"key": step:item:hash, "result": ...}`."""
    record = require(json_object(line), {"key": str})
    if "result" not in record:
        raise ValueError("result: missing")
    if set(record) != {"key", "result"}:
        raise ValueError(f"{sorted(set(record) - {'key', 'result'})[0]}: not a field of a journal line")
    return record


def set_aside_journal_lines(folder: Path) -> SetAside | None:
    """Move the lines of `folder`'s calls.jsonl that cannot be read into
    calls.set-aside.jsonl beside it (their steps are asked again); None when all read."""
    return set_aside_bad_lines(folder / CALLS, parse_call)


class BuildJournal:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / CALLS
        contents = read_log(self.path, parse_call)
        self.results: dict[str, Any] = {record["key"]: record["result"] for record in contents.checked()}
        self._appender = LogAppender(contents)
        self.reused = 0  # steps answered from the journal in this run

    @staticmethod
    def key(step: str, item: str, request: str) -> str:
        """`step:item:hash`; `request` is everything the model sees (prompt text, image pixels)."""
        return f"{step}:{item}:{hashlib.sha256(request.encode()).hexdigest()[:16]}"

    def get(self, key: str) -> Any:
        """The recorded result of a step (counted as reused), or None when it was never completed."""
        if key in self.results:
            self.reused += 1
            return self.results[key]
        return None

    def put(self, key: str, result: Any) -> None:
        if key in self.results:
            return
        self._appender.append([json.dumps({"key": key, "result": result})])
        self.results[key] = result
