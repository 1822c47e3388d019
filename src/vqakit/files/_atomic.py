"""Files on disk that survive being killed at any moment.

- Append-only JSONL (run folders, build journals): `append_synced` writes one whole line and
  makes it durable; `complete_lines` reads the records back and cuts off a last line that a kill
  left half-written, so appending can go on cleanly.
- `write_text_atomic`: rewritten files (configs, results, reports) are written to a temporary
  file beside the target and renamed over it, so a reader sees the old or the new file, never a
  torn one.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from vqakit.files._gc import collector_paused


def complete_lines(path: Path, parse: Callable[[bytes], Any], *, repair: bool = True) -> list[Any]:
    """Records of an append-only JSONL file. A last line cut short by a kill (no newline, or
    unparseable) is left out, and with `repair` (the writer's side) removed from the file so that
    appending can go on cleanly; readers pass `repair=False` and change nothing."""
    raw = path.read_bytes() if path.exists() else b""
    records, good_end = [], 0
    with collector_paused():
        for line in raw.splitlines(keepends=True):
            if not line.endswith(b"\n"):
                break
            try:
                records.append(parse(line))
            except ValueError:
                break
            good_end += len(line)
    if repair and good_end < len(raw):
        with open(path, "r+b") as handle:
            handle.truncate(good_end)
    return records


def append_synced(handle: IO[str], line: str) -> None:
    """Write one whole line and make it durable before returning."""
    handle.write(line + "\n")
    handle.flush()
    os.fsync(handle.fileno())


def _file_mode() -> int:
    """The mode a new file gets from the process's umask (temporary files are created 0600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_MODE = _file_mode()


def write_atomic(path: str | Path, write: Callable[[IO[bytes]], Any]) -> Path:
    """Replace `path` with what `write(handle)` writes, in one rename. The temporary file has a
    name of its own, so two processes writing the same file never mix their bytes."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(handle, _MODE)
        with os.fdopen(handle, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Replace `path` with `text` (UTF-8) in one rename."""
    return write_atomic(path, lambda out: out.write(text.encode("utf-8")))
