"""Files on disk that survive being killed at any moment.

- Append-only JSONL logs (run folders, build journals) have their own module, `_logs`: one
  reader and one policy for all of them.
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
