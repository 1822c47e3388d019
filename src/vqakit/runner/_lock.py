"""One writer per run folder: a second `vqakit eval` on the same folder stops at once with a
clear message instead of doing all the work again and writing duplicate lines. The lock file
exists only while a run holds it: it is removed on exit (a process killed with -9 leaves it,
unlocked, and the next run takes it)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

LOCK = ".lock"


class RunLockedError(RuntimeError):
    """Another process is writing to the run folder."""


class RunLock:
    """An exclusive advisory lock on `<folder>/.lock`, released and removed on exit (released by
    the system when the process dies). A process that locked a file its holder removed in the
    meantime locks the new one instead."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / LOCK
        self._handle: int | None = None

    def __enter__(self) -> RunLock:
        while True:
            handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(handle, 32).decode(errors="replace").strip() or "another process"
                os.close(handle)
                raise RunLockedError(
                    f"{self.path.parent} is in use by another vqakit eval (pid {holder}); wait for it to "
                    "finish, or choose another --out"
                ) from None
            if self._still_linked(handle):
                break
            os.close(handle)  # the holder removed this file as we locked it: lock the new one
        os.ftruncate(handle, 0)
        os.write(handle, str(os.getpid()).encode())
        self._handle = handle
        return self

    def _still_linked(self, handle: int) -> bool:
        """Whether the file we locked is still the one at `path` (not removed by its last holder)."""
        try:
            return os.stat(self.path).st_ino == os.fstat(handle).st_ino
        except FileNotFoundError:
            return False

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._handle is not None:
            self.path.unlink(missing_ok=True)  # removed while still held, so no one locks a stale file
            fcntl.flock(self._handle, fcntl.LOCK_UN)
            os.close(self._handle)
            self._handle = None
