"""One writer per index folder: a second `vqakit index` (or a retrieval method bringing the index
up to date) on the same folder waits for the first, then reads what it wrote, so only what is
still new or changed is embedded again. Without it two writers raced: with LanceDB one of them
failed on `Table 'passages' already exists`; with NumPy a table's matrix and its rows could come
from different writers.

The lock is an exclusive advisory lock (`flock`) on `<folder>/.lock`, released by the system
when its holder dies (a process killed with -9 leaves the file, unlocked). The file is removed
on exit while still held; a process that locked a file removed in the meantime locks the new one.
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

LOCK = ".lock"
PATIENCE_S = 1.0  # how long a writer waits quietly before saying what it waits for


class IndexLock:
    """`with IndexLock(folder, on_wait=print):` holds the folder's lock; `on_wait` hears one line
    when the lock is held by another process for more than `patience_s` seconds."""

    def __init__(
        self,
        folder: Path,
        *,
        on_wait: Callable[[str], None] | None = None,
        patience_s: float = PATIENCE_S,
    ) -> None:
        self.path = Path(folder) / LOCK
        self.on_wait = on_wait
        self.patience_s = patience_s
        self._handle: int | None = None

    def __enter__(self) -> IndexLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        told = False
        while True:
            handle = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                if not self._try(handle):
                    told = self._wait(handle, told)
            except BaseException:
                os.close(handle)
                raise
            if self._still_linked(handle):
                break
            os.close(handle)  # its holder removed this file as we locked it: lock the new one
        os.ftruncate(handle, 0)
        os.write(handle, str(os.getpid()).encode())
        self._handle = handle
        return self

    @staticmethod
    def _try(handle: int) -> bool:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _wait(self, handle: int, told: bool) -> bool:
        """Poll for `patience_s`, then say who holds the lock (once) and block until it is free."""
        deadline = time.monotonic() + self.patience_s
        while time.monotonic() < deadline:
            time.sleep(0.05)
            if self._try(handle):
                return told
        if not told and self.on_wait is not None:
            holder = os.pread(handle, 32, 0).decode(errors="replace").strip()
            who = f"pid {holder}" if holder.isdigit() else "another process"
            self.on_wait(
                f"waiting for {who} to finish writing the index at {self.path.parent}; "
                "what it embeds is reused"
            )
        fcntl.flock(handle, fcntl.LOCK_EX)
        return True

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
