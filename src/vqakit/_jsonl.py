"""Append-only JSONL files that survive being killed at any moment (run folders, build journals)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def complete_lines(path: Path, parse: Callable[[bytes], Any]) -> list[Any]:
    """Records of an append-only JSONL file; a last line cut short by a kill (no newline, or
    unparseable) is removed from the file so that appending can go on cleanly."""
    raw = path.read_bytes() if path.exists() else b""
    records, good_end = [], 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            records.append(parse(line))
        except ValueError:
            break
        good_end += len(line)
    if good_end < len(raw):
        with open(path, "r+b") as handle:
            handle.truncate(good_end)
    return records


def append_synced(handle: IO[str], line: str) -> None:
    """Write one whole line and make it durable before returning."""
    handle.write(line + "\n")
    handle.flush()
    os.fsync(handle.fileno())
