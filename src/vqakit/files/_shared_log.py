"""An append-only log that threads and processes read and append to at once (the studio's
people's logs: review decisions, answers, annotations), on the one reader and policy of
`vqakit.files._logs`.

- Readers hold a shared `flock` on the file, writers an exclusive one, so a reader never sees
  half a write and a writer sees every line appended before its own.
- A `SharedLog` object follows its file: each read parses only what was appended since the last
  one (`read_log` from the end of what it read, with the file's line numbers), and reads the
  whole file again when it was replaced (another file at the path: a line set aside) or edited
  in place (a line mended by hand: what was read is no longer what is there).
- Writing goes through `LogAppender`: one write and one fsync a call, a torn last line removed
  first (the only removal), the new file's folder entry synced.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from vqakit.files._logs import LogAppender, LogContents, Parser, UnreadableLog, read_log, sync_folder

_TAIL = 64  # bytes before the end of what was read, compared to tell an edit from an append


class SharedLog:
    """One log file at `path`, its lines read with `parse` (see `read_log`)."""

    def __init__(self, path: str | Path, parse: Parser) -> None:
        self.path = Path(path)
        self.parse = parse
        self._lock = threading.Lock()
        self.generation = 0  # bumped each time what was read is forgotten (read again from the start)
        self._forget()

    def _forget(self) -> None:
        self.generation += 1
        self._records: list[Any] = []
        self._numbers: list[int] = []
        self._problems: list[tuple[int, str]] = []
        self._torn = b""
        self._end = 0  # bytes read, up to the end of the last complete line (or record)
        self._next_line = 1
        self._unterminated = False
        self._file: tuple[int, int] = (0, 0)  # (device, inode) of the file read
        self._tail = b""
        self._mtime = 0

    def read(self) -> LogContents[Any]:
        """Everything readable in the log now (empty when there is no file); `UnreadableLog`
        when it cannot be opened."""
        with self._lock:
            if not self.path.exists() and not self.path.is_symlink():
                self._forget()  # removed: nothing of it is known any more
                return self._contents()
            try:
                handle = self._open("rb", fcntl.LOCK_SH)
            except FileNotFoundError:
                self._forget()
                return self._contents()
            with handle:
                self._catch_up(handle)
                return self._contents()

    @contextmanager
    def appending(self) -> Iterator[SharedLogWriter]:
        """Hold the log for writing: other writers (threads and processes) wait; the writer
        yielded has the contents as they are now and appends after them."""
        with self._lock:
            created = not self.path.exists()
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                handle = self._open("a+b", fcntl.LOCK_EX)
            except OSError as error:
                raise UnreadableLog(self.path, error) from None
            with handle:
                self._catch_up(handle)
                yield SharedLogWriter(self, handle, created)

    def _open(self, mode: str, lock: int) -> IO[bytes]:
        """The file at `path`, locked; opened again when another file took its place while this
        one waited for its lock (`set_aside_bad_lines` replaces a log under an exclusive lock)."""
        while True:
            try:
                handle = open(self.path, mode)  # noqa: SIM115 - the caller closes it
            except OSError as error:
                if isinstance(error, FileNotFoundError) and "r" in mode:
                    raise
                raise UnreadableLog(self.path, error) from None
            fcntl.flock(handle, lock)
            held = os.fstat(handle.fileno())
            try:
                now = os.stat(self.path)
            except FileNotFoundError:
                now = None
            if now is not None and (now.st_dev, now.st_ino) == (held.st_dev, held.st_ino):
                return handle
            handle.close()
            if now is None and "r" in mode:
                raise FileNotFoundError(self.path)

    def _unchanged(self, handle: IO[bytes], stat: os.stat_result) -> bool:
        """Whether what was read of the file is still there: the same file, at least as long,
        ending with the same bytes, and not written since without growing."""
        if (stat.st_dev, stat.st_ino) != self._file or stat.st_size < self._end:
            return False
        if stat.st_size == self._end and stat.st_mtime_ns != self._mtime:
            return False
        return os.pread(handle.fileno(), len(self._tail), self._end - len(self._tail)) == self._tail

    def _catch_up(self, handle: IO[bytes]) -> None:
        stat = os.fstat(handle.fileno())
        if self._end and not self._unchanged(handle, stat):
            self._forget()
        self._file = (stat.st_dev, stat.st_ino)
        more = read_log(self.path, self.parse, offset=self._end, first_line=self._next_line, opened=handle)
        self._records += more.records
        self._numbers += more.numbers
        self._problems += more.problems
        self._torn = more.torn
        if more.end > self._end or more.torn:  # else nothing new: the last line is as it was
            self._unterminated = more.unterminated
        self._end, self._next_line = more.end, more.next_line
        size = min(_TAIL, self._end)
        self._tail = os.pread(handle.fileno(), size, self._end - size)
        self._mtime = os.fstat(handle.fileno()).st_mtime_ns

    def _contents(self) -> LogContents[Any]:
        return LogContents(
            self.path,
            list(self._records),
            list(self._numbers),
            list(self._problems),
            self._torn,
            self._end,
            self._unterminated,
            self._next_line,
        )


class SharedLogWriter:
    """A `SharedLog` held for writing (`SharedLog.appending`)."""

    def __init__(self, log: SharedLog, handle: IO[bytes], created: bool) -> None:
        self._log, self._handle, self._created = log, handle, created

    @property
    def contents(self) -> LogContents[Any]:
        return self._log._contents()

    def append(self, lines: Sequence[str]) -> None:
        """Write `lines`, synced, after a torn last line is removed; then read them back (so
        `contents` has them as every reader will)."""
        LogAppender(self._log._contents()).append(lines)
        if self._created:
            sync_folder(self._log.path.parent)
            self._created = False
        self._log._catch_up(self._handle)
