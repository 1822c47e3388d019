"""What every step-annotation reader shares: loading a file once (JSON, or text for the table
form), a log that keeps problems apart from tolerated quirks, and strict time parsing.

Problems are records (or parts of them) that were skipped or imported incomplete; notes are
quirks of real data that were read as they are (integer times, a missing flag, a substep a few
seconds outside its step). Both name the file and the record so a person can look them up.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.files import JSONError, decode, find_unusable, parse_json, read_bytes, reading
from vqakit.systems.instructionbench.video_info import Step

# A record that cannot be read: skipped with a problem line, the import goes on.
RECORD_ERRORS = (ValueError, TypeError, KeyError, AttributeError, IndexError)


@dataclass
class Loaded:
    """A file read once: its text and, when the whole text is JSON, the parsed value."""

    path: Path
    text: str
    data: Any = None
    json_error: str | None = None  # why the text is not one JSON value ("line 3 column 5: ...")

    @property
    def is_json(self) -> bool:
        return self.json_error is None


def load(path: str | Path) -> Loaded:
    """Reads `path` with the hardened reader (any byte-order mark and line end; bytes that are
    not UTF-8 are the problem of the record holding them) and tries to parse it as one JSON
    value; a file that cannot be read is an `InputError` naming it."""
    path = Path(path)
    with reading(path):
        text = decode(read_bytes(path), path)
        try:
            return Loaded(path, text, parse_json(text))
        except JSONError as error:
            return Loaded(path, text, json_error=f"line {error.line} column {error.column}: {error.message}")


@dataclass
class Log:
    """Problems and notes of one import, each line starting with the file and record."""

    path: Path
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    note_kinds: Counter[str] = field(default_factory=Counter)

    def where(self, key: str | None, line: int | None = None) -> str:
        place = f"{self.path}:{line}" if line is not None else str(self.path)
        return f"{place}: record {key}" if key is not None else place

    def problem(self, key: str | None, text: str, line: int | None = None) -> None:
        self.problems.append(f"{self.where(key, line)}: {text}")

    def refused(self, key: str | None, record: Any, line: int | None = None) -> bool:
        """Lists the first value of `record` the reader refused (`find_unusable`: numbers beyond
        64 bits, text that is not Unicode, nesting too deep) as the record's problem; True when
        there is one, and the record is then skipped."""
        found = find_unusable(record)
        if found is not None:
            self.problem(key, f"{found[0]}: {found[1]}; skipped", line)
        return found is not None

    def note(self, key: str | None, kind: str, detail: str = "") -> None:
        """A tolerated quirk; `kind` is a short phrase the summary counts ("integer times")."""
        self.note_kinds[kind] += 1
        self.notes.append(f"{self.where(key)}: {kind}{f' ({detail})' if detail else ''}")


def seconds(value: Any) -> float:
    """A time in seconds as float. Numbers, numeric strings and clock strings ("1:02.5",
    "1:02:03") are read; anything else, negative or not finite, is a ValueError."""
    if isinstance(value, bool) or value is None:
        raise ValueError(f"not a time: {value!r}")
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and value.strip():
        parts = value.strip().split(":")
        if len(parts) > 3:
            raise ValueError(f"not a time: {value!r}")
        try:
            numbers = [float(part) for part in parts]
        except ValueError:
            raise ValueError(f"not a time: {value!r}") from None
        if len(numbers) > 1 and any(part < 0 or part >= 60 for part in numbers[1:]):
            raise ValueError(f"not a clock time: {value!r}")
        number = 0.0
        for part in numbers:
            number = number * 60 + part
    else:
        raise ValueError(f"not a time: {value!r}")
    if not math.isfinite(number):
        raise ValueError(f"not a finite time: {value!r}")
    if number < 0:
        raise ValueError(f"negative time: {value!r}")
    return number


def span(start: Any, end: Any) -> tuple[float, float]:
    """(start, end) in seconds, end not before start; otherwise a ValueError saying why."""
    begin, finish = seconds(start), seconds(end)
    if finish < begin:
        raise ValueError(f"ends before it starts ({begin:g} > {finish:g})")
    return begin, finish


def is_integer_time(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def text_of(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def by_time(steps: list[Step]) -> list[Step]:
    """Steps in time order (by start, then end; untimed steps keep their order at the end)."""
    return sorted(steps, key=lambda s: (s.start is None, s.start or 0.0, s.end or 0.0))


def span_of(children: list[Step]) -> tuple[float | None, float | None]:
    """The smallest window holding every timed child."""
    starts = [child.start for child in children if child.start is not None]
    ends = [child.end for child in children if child.end is not None]
    return (min(starts) if starts else None, max(ends) if ends else None)
