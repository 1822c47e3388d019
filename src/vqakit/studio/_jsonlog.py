"""Append-only JSONL logs that people's actions go to (review decisions, answers, annotations).

They are logs like every other of vqakit, read by the one reader with its one policy
(`vqakit.files.read_log`, here through `vqakit.files.SharedLog`, which several threads and
processes read and append to at once): a last line cut short by a kill is left alone by
readers and removed by the next writer only; a complete line that cannot be read (not JSON, not
an object, a value of the wrong type or one that cannot be kept: edited by hand) is kept in the
file, left out of the records and named with its file and line (`BadLogLines`, like a damaged
run log); a log that cannot be opened (a folder in its place) is `UnreadableLog`.

Every record carries a `request_id` made by the client. Appending is idempotent: a record whose
request id is in the file already is not written again (a request retried after a lost reply,
or resent after the server was killed, is written once); the check runs under the writers'
lock, after reading what others appended.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from vqakit.files import (
    BadLogLines,
    InputError,
    LogContents,
    Parser,
    SharedLog,
    UnreadableLog,
    find_unusable,
    parse_json,
)

Record = dict[str, Any]
LogProblem = BadLogLines | UnreadableLog  # what a page lists (`named()`) and a writer is refused with


def record_parser(model: type[BaseModel] | None) -> Parser:
    """A line as a JSON object whose values can all be kept and that `model` accepts
    (ValueError saying why not: `vqakit.files.line_problem` words it)."""

    def parse(line: bytes) -> Record:
        record = parse_json(line.decode("utf-8"))
        if not isinstance(record, dict):
            raise ValueError(f"not a JSON object ({type(record).__name__})")
        unusable = find_unusable(record)
        if unusable is not None:
            where, why = unusable
            raise ValueError(why if where == "-" else f"{where}: {why}")
        if model is not None:
            model.model_validate(record)
        return record

    return parse


def problem_lines(problem: InputError | None) -> list[str]:
    """`FILE:LINE: reason` of each line of a log problem (`FILE: reason` for the file)."""
    if isinstance(problem, BadLogLines | UnreadableLog):
        return problem.named()
    return [] if problem is None else [str(problem)]


class RequestLog:
    """One append-only JSONL file of records with a `request_id` each; `model` (a pydantic
    model) is what each line must be, else the line is a problem, not a record. `hint`: what
    to do about a damaged line, said with it."""

    def __init__(self, path: Path, model: type[BaseModel] | None = None, *, hint: str | None = None) -> None:
        self.path = path
        self.model = model
        self.hint = hint
        self._log = SharedLog(path, record_parser(model))
        self._by_request: dict[str, Record] = {}
        self._indexed = (0, 0)  # (the log's generation, records indexed)

    def _read(self) -> tuple[LogContents[Record] | None, LogProblem | None]:
        try:
            contents = self._log.read()
        except UnreadableLog as error:
            return None, error
        return contents, self._damage(contents)

    def _damage(self, contents: LogContents[Record]) -> BadLogLines | None:
        return BadLogLines(self.path, contents.problems, hint=self.hint) if contents.problems else None

    def records(self, *, strict: bool = False) -> list[Record]:
        """Every readable record, in the order written; with `strict`, `BadLogLines` when a
        line cannot be read (`UnreadableLog`: the file)."""
        contents, problem = self._read()
        if strict and problem is not None:
            raise problem
        return contents.records if contents is not None else []

    def problem(self) -> LogProblem | None:
        """What keeps lines of the log (or the log) from being read, or None."""
        return self._read()[1]

    def problems(self) -> list[str]:
        """`FILE:LINE: reason` of each line that cannot be read (`FILE: reason`: the file)."""
        return problem_lines(self.problem())

    def append(
        self,
        record: Record,
        *,
        check: Callable[[list[Record]], None] | None = None,
        then: Callable[[list[Record]], None] | None = None,
        refuse_damaged: bool = False,
    ) -> tuple[Record, bool]:
        """Write `record` unless its request id is in the file already; returns (the stored
        record, whether it was written now). `check(records)` runs first, under the writers'
        lock, and may raise to refuse the record; `then(records)` runs after the write, still
        under it (e.g. to write a file derived from the log; it must not read this log again).
        `UnreadableLog` when the file cannot be opened; with `refuse_damaged`, `BadLogLines`
        when one of its lines cannot be read (appending loses nothing, but a state derived from
        every line would be wrong)."""
        if not isinstance(record.get("request_id"), str):
            raise ValueError("a record needs a request_id")
        with self._log.appending() as log:
            contents = log.contents
            earlier = self._earlier(contents.records, record["request_id"])
            if earlier is not None:
                return earlier, False
            if refuse_damaged and (damage := self._damage(contents)) is not None:
                raise damage
            if check is not None:
                check(contents.records)
            log.append([json.dumps(record, ensure_ascii=False)])
            if then is not None:
                then(log.contents.records)
        return record, True

    def _earlier(self, records: list[Record], request_id: str) -> Record | None:
        """The first record with this request id (an index kept up as the log grows)."""
        generation, done = self._indexed
        if generation != self._log.generation or done > len(records):
            self._by_request, done = {}, 0
        for record in records[done:]:
            if isinstance(record.get("request_id"), str):
                self._by_request.setdefault(record["request_id"], record)
        self._indexed = (self._log.generation, len(records))
        return self._by_request.get(request_id)
