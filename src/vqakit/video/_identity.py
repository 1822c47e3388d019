"""A video's identity: its content digest, checked by size and modification time.

The digest (SHA-256 of the file's bytes) names a video wherever it lies, so a copied benchmark
folder, another run or another host finds the same frames. It is computed once per file
version: kept in this process, and by the frame store across processes (`FrameStore.digest`),
keyed by path, size and mtime.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

from vqakit.video._errors import VideoError


def file_version(path: str | Path) -> tuple[str, int, int]:
    """(absolute path, size, mtime in ns): what says that a file is still the one digested."""
    try:
        stat = os.stat(path)
    except FileNotFoundError:
        raise VideoError(path, "file not found") from None
    return str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns


@lru_cache(maxsize=1024)
def _digest(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def content_digest(path: str | Path) -> str:
    """SHA-256 of the file's content (hex), computed once per path, size and mtime."""
    return _digest(*file_version(path))
