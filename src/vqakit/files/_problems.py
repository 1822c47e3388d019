"""How a reader says what is wrong with an input: one line naming the file, and where in it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]|[\ud800-\udfff]")


def one_line(text: str) -> str:
    """`text` with control characters, line breaks and lone surrogates written as escapes, so
    that it prints on one line of any terminal."""
    return _BREAKS.sub(lambda match: ascii(match[0])[1:-1], text)


class InputError(ValueError):
    """An input cannot be used at all; the message names the file (and line, where one is
    to blame). Raised for what no record of the file can survive: the file is missing, is a
    folder, is not JSON as a whole, has a broken header."""


@dataclass(frozen=True)
class InputProblem:
    """Why one record of an input was skipped: `FILE[:LINE][: record KEY]: field: problem`."""

    file: str
    line: int | None = None  # 1-based; None where the format has no lines to point at
    record: str | None = None  # the record's key or number, where the file gives one
    field: str = "-"  # dotted path inside the record, "-" for the record as a whole
    message: str = ""

    def __str__(self) -> str:
        place = self.file + (f":{self.line}" if self.line else "")
        if self.record is not None:
            place += f": record {self.record}"
        return one_line(f"{place}: {self.field}: {self.message}")


_READING: ContextVar[tuple[str, ...]] = ContextVar("vqakit_reading", default=())
_last_read: list[str] = []


def note_read(path: str | Path) -> None:
    """Remember `path` as the input read last (named by the CLI when a bug stops a command)."""
    _last_read[:] = [str(path)]


def last_read() -> str | None:
    """The input file read last in this process, or None."""
    return _last_read[0] if _last_read else None


@contextmanager
def reading(path: str | Path) -> Iterator[None]:
    """Marks the work inside as reading `path`: an exception that escapes gets the note
    `while reading PATH` (once, for the innermost file), so that even a bug names its input."""
    note_read(path)
    token = _READING.set((*_READING.get(), str(path)))
    try:
        yield
    except Exception as error:
        notes = getattr(error, "__notes__", [])
        if not any(note.startswith("while reading ") for note in notes):
            error.add_note(f"while reading {path}")
        raise
    finally:
        _READING.reset(token)
