"""Append-only JSONL logs: one reader and one policy for every log vqakit keeps (a run's
predictions and judgments, the judges' batch journal and replies, build journals, people's
answers).

The policy:
- A record is one line ended by a newline. A last line with no newline after it was cut short
  by a kill (each record is written with one call): readers leave it out and leave it alone
  (`LogContents.torn`); only the process that appends next removes it (`LogAppender`). A last
  line with no newline that reads whole (a file edited by hand) is a record, and the appender
  ends it with its newline instead.
- A complete line that cannot be read, wherever it is (not UTF-8, not JSON, not a record of the
  log's kind: `{}`, an unknown key, a value of the wrong type), is a problem of its file and
  line: `read_log` returns it in `problems`; `LogContents.checked()` raises `BadLogLines`
  naming every such FILE:LINE and why. Only when the user asks (`--set-aside-bad-lines`) does
  `set_aside_bad_lines` move those lines, byte for byte, into the quarantine file beside the
  log (`set_aside_path`: `predictions.jsonl` -> `predictions.set-aside.jsonl`), where they are
  kept and listed; `set_aside_counts` counts them for results.
- Lines that hold only blanks carry no record and are passed over.
- Nothing here deletes or truncates a complete line.

A parser is `parse(line: bytes) -> record` (the line without its line end) raising ValueError
(pydantic's ValidationError and json's errors are ValueErrors) for a line that is not a record
of its log.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Generic, TypeVar

from vqakit.files._gc import collector_paused
from vqakit.files._log_lines import line_problem
from vqakit.files._problems import InputError

T = TypeVar("T")
Parser = Callable[[bytes], Any]

SET_ASIDE_OPTION = "--set-aside-bad-lines"  # the option of every verb that reads logs
SET_ASIDE_SUFFIX = ".set-aside.jsonl"
LISTED = 20  # problems named in an error's message; the others are counted


def set_aside_path(log: str | Path) -> Path:
    """The quarantine file of `log`, beside it: `name.jsonl` -> `name.set-aside.jsonl`."""
    log = Path(log)
    stem = log.name.removesuffix(".jsonl")
    return log.with_name(stem + SET_ASIDE_SUFFIX)


def is_set_aside_file(path: str | Path) -> bool:
    return Path(path).name.endswith(SET_ASIDE_SUFFIX)


class BadLogLines(InputError):
    """Complete lines of an append-only log that cannot be read. `path` is the log,
    `problems` its (line number, reason) pairs, 1-based; `more` holds the same for other logs
    read together (a run folder's), so one message names them all. `hint` says what to do."""

    def __init__(
        self,
        path: str | Path,
        problems: Sequence[tuple[int, str]],
        *,
        more: Sequence[BadLogLines] = (),
        hint: str | None = None,
    ) -> None:
        self.path = Path(path)
        self.problems = list(problems)
        self.more = list(more)
        self.hint = hint
        super().__init__(self._message())

    def each(self) -> list[BadLogLines]:
        """This log's problems, then each other log's."""
        return [self, *self.more]

    def named(self) -> list[str]:
        """Every line of every log, as `FILE:LINE: reason` (what a page lists)."""
        return [f"{bad.path}:{line}: {reason}" for bad in self.each() for line, reason in bad.problems]

    def _message(self) -> str:
        heads, listed = [], []
        for bad in self.each():
            count = len(bad.problems)
            heads.append(f"{bad.path}: {count} line{'s' if count != 1 else ''}")
            listed += [f"  {bad.path}:{line}: {reason}" for line, reason in bad.problems[:LISTED]]
            if count > LISTED:
                listed.append(f"  ... and {count - LISTED} more line(s) of {bad.path}")
        hints = dict.fromkeys(bad.hint or _set_aside_hint(bad.path) for bad in self.each())
        return "\n".join([f"{'; '.join(heads)} cannot be read; nothing was changed:", *listed, *hints])


class UnreadableLog(InputError):
    """A log that cannot be opened at all (a folder in its place, no permission to read it):
    `FILE: why`. Nothing of it was read, nothing was changed."""

    def __init__(self, path: str | Path, error: OSError) -> None:
        self.path = Path(path)
        if isinstance(error, IsADirectoryError) or self.path.is_dir():
            self.reason = "is a folder, not a log file"
        else:
            self.reason = f"cannot be read ({error.strerror or error})"
        super().__init__(f"{self.path}: {self.reason}")

    def named(self) -> list[str]:
        return [str(self)]


def _set_aside_hint(path: Path) -> str:
    return (
        f"Mend or remove these lines of {path}, or rerun with {SET_ASIDE_OPTION} to move them into "
        f"{set_aside_path(path)} (kept there, counted in results.json) and go on without them."
    )


@dataclass(frozen=True)
class LogContents(Generic[T]):
    """What `read_log` found. `records` and `numbers` (each record's 1-based line) in file
    order; `problems`: (line, reason) of each complete line that could not be read; `torn`: a
    last line cut short (no newline, unreadable), left out and left alone, b"" when none;
    `end`: bytes of the file up to the end of its last complete line (where an appender
    writes after removing `torn`; where a later `read_log(offset=...)` goes on, its first line
    numbered `next_line`); `unterminated`: the last line has no newline but was read as a
    record (an appender ends it with one)."""

    path: Path
    records: list[T] = field(default_factory=list)
    numbers: list[int] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    torn: bytes = b""
    end: int = 0
    unterminated: bool = False
    next_line: int = 1  # the number of the line that starts at `end`

    def checked(self, hint: str | None = None) -> list[T]:
        """The records, or `BadLogLines` naming every line that could not be read."""
        if self.problems:
            raise BadLogLines(self.path, self.problems, hint=hint)
        return self.records


def parse_lines(
    raw: bytes, parse: Parser, first_line: int = 1
) -> Iterable[tuple[int, int, int, Any, str | None]]:
    """(line number, start, end, record or None, problem or None) for each line holding
    something; the last line (no newline) comes with end == len(raw)."""
    start = 0
    number = first_line - 1
    size = len(raw)
    while start < size:
        newline = raw.find(b"\n", start)
        end = size if newline < 0 else newline + 1
        number += 1
        line = raw[start:end].rstrip(b"\r\n")
        if line.strip():
            try:
                line.decode("utf-8")  # a log is UTF-8 text (json would guess UTF-16 from a stray BOM)
                yield number, start, end, parse(line), None
            except (ValueError, RecursionError) as error:
                yield number, start, end, None, line_problem(error)
        start = end


CHUNK = 1 << 22  # bytes `LogReader` reads at a time
Entry = tuple[int, int, Any]  # (offset of its line, line number, record)


class LogReader:
    """`read_log` as a stream, in bounded memory whatever the log's size: iterating gives
    `(offset, line number, record)` for each record in file order (`offset`: where its line
    starts, for reading it again with `os.pread`), and once iterated, `problems`, `torn`, `end`,
    `unterminated` and `next_line` are what `read_log`'s `LogContents` says (`contents()`). The
    same policy, the same lines (see the module)."""

    def __init__(self, path: str | Path, parse: Parser, *, offset: int = 0, first_line: int = 1) -> None:
        self.path, self.parse = Path(path), parse
        self.offset, self.first_line = offset, first_line
        self.problems: list[tuple[int, str]] = []
        self.torn, self.end, self.unterminated, self.next_line = b"", offset, False, first_line

    def __iter__(self) -> Iterator[Entry]:
        try:
            handle = open(self.path, "rb")  # noqa: SIM115 - closed below, the generator may stop early
        except FileNotFoundError:
            return
        except OSError as error:
            raise UnreadableLog(self.path, error) from None
        with handle:
            handle.seek(self.offset)
            base, number, rest = self.offset, self.first_line - 1, b""
            while True:
                try:
                    chunk = handle.read(CHUNK)
                except OSError as error:
                    raise UnreadableLog(self.path, error) from None
                if not chunk:
                    break
                data = rest + chunk
                cut = data.rfind(b"\n") + 1
                block, rest = data[:cut], data[cut:]
                if block:
                    yield from self._block(block, base, number)
                    number += block.count(b"\n")
                    base += len(block)
                    self.end, self.next_line = base, number + 1
            if rest:  # a last line with no newline: a record (unterminated), or torn by a kill
                found = list(self._block(rest, base, number, last=True))
                yield from found
                if found:
                    self.unterminated, self.end = True, base + len(rest)
                elif not self.torn:  # blanks only: passed over, counted in `end` as read_log does
                    self.end = base + len(rest)

    def _block(self, block: bytes, base: int, number: int, *, last: bool = False) -> list[Entry]:
        """The records of a block of whole lines (the last line of the log with `last`), the
        collector paused while they are made, not while the caller uses them."""
        found = []
        with collector_paused():
            for line, start, _stop, record, problem in parse_lines(block, self.parse, number + 1):
                if problem is None:
                    found.append((base + start, line, record))
                elif last:  # cut short by a kill: the next appender removes it
                    self.torn, self.end = block[start:], base + start
                else:
                    self.problems.append((line, problem))
        return found

    def contents(self) -> LogContents[Any]:
        """What `read_log` returns, without the records (for a `LogAppender`; read first)."""
        return LogContents(
            self.path, [], [], self.problems, self.torn, self.end, self.unterminated, self.next_line
        )

    def checked(self, hint: str | None = None) -> None:
        """After iterating: `BadLogLines` naming every line that could not be read."""
        if self.problems:
            raise BadLogLines(self.path, self.problems, hint=hint)


def read_log(
    path: str | Path,
    parse: Parser,
    *,
    offset: int = 0,
    first_line: int = 1,
    opened: IO[bytes] | None = None,
) -> LogContents[Any]:
    """Every record of the append-only JSONL log at `path` (missing: none), with the lines that
    could not be read as problems. Reads only; see the module's docstring for the policy.
    `offset`, `first_line`: read on from where an earlier read ended (its `end`, a line start,
    and `next_line`), for a reader that follows a log as it grows; offsets stay the file's.
    `opened`: the log already open (and locked: `SharedLog`), read instead of opening `path`.
    `UnreadableLog` when the file cannot be opened. (`LogReader` reads the same as a stream.)"""
    path = Path(path)
    try:
        if opened is not None:
            opened.seek(offset)
            raw = opened.read()
        else:
            with open(path, "rb") as handle:
                handle.seek(offset)
                raw = handle.read()
    except FileNotFoundError:
        return LogContents(path)
    except OSError as error:
        raise UnreadableLog(path, error) from None
    records: list[Any] = []
    numbers: list[int] = []
    problems: list[tuple[int, str]] = []
    torn, end, unterminated = b"", len(raw), False
    with collector_paused():
        for number, start, stop, record, problem in parse_lines(raw, parse, first_line):
            last = stop == len(raw) and not raw.endswith(b"\n")
            if problem is not None:
                if last:  # cut short by a kill: the next appender removes it
                    torn, end = raw[start:], start
                else:
                    problems.append((number, problem))
                continue
            records.append(record)
            numbers.append(number)
            unterminated = last
    next_line = first_line + raw[:end].count(b"\n")  # after an unterminated record: its own number
    return LogContents(path, records, numbers, problems, torn, offset + end, unterminated, next_line)


class LogAppender:
    """Appends whole lines to a log: each call one write and one fsync (a new file's folder
    entry synced too). Before its first write it removes a torn last line that `contents`
    found, if that line is still the file's last (the one removal this module makes), or ends
    an unterminated readable last line with its newline."""

    def __init__(self, contents: LogContents[Any]) -> None:
        self.path = contents.path
        self._contents: LogContents[Any] | None = contents

    def append(self, lines: Sequence[str]) -> None:
        if not lines:
            return
        payload = "".join(line + "\n" for line in lines).encode("utf-8")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        handle = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            if self._contents is not None:
                self._mend_tail(handle)
                self._contents = None
            view = memoryview(payload)
            while view:  # one call for a regular file; the loop only guards a short write
                view = view[os.write(handle, view) :]
            os.fsync(handle)
        finally:
            os.close(handle)
        if created:
            sync_folder(self.path.parent)

    def _mend_tail(self, handle: int) -> None:
        contents = self._contents
        assert contents is not None
        size = os.fstat(handle).st_size
        if contents.torn and size > contents.end:
            tail = os.pread(handle, size - contents.end, contents.end)
            if b"\n" not in tail:  # still the torn line (no one appended after it)
                os.ftruncate(handle, contents.end)
        elif contents.unterminated and size and os.pread(handle, 1, size - 1) != b"\n":
            os.write(handle, b"\n")


def sync_folder(folder: Path) -> None:
    """Make a new file's name durable (its folder's entry), not only its bytes."""
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)
