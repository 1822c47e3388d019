"""Reading builder inputs: JSONL records checked against a schema, and folders of videos. Every
error names the file (and line) to fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

VIDEO_SUFFIXES = (".mp4", ".mkv", ".mov", ".webm", ".avi")

Record = TypeVar("Record", bound=BaseModel)


class InputError(ValueError):
    """A builder input is unusable; the message names the file and line."""


def read_records(path: str | Path, schema: type[Record]) -> list[Record]:
    """One `schema` record per non-blank line of a JSONL file; the first bad line is an
    `InputError` saying `FILE:LINE: field: problem`."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(f"{path}: file not found") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error})") from None
    records = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(schema.model_validate(json.loads(line)))
        except json.JSONDecodeError as error:
            raise InputError(f"{path}:{number}: invalid JSON ({error.msg})") from None
        except ValidationError as error:
            first = error.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "line"
            raise InputError(f"{path}:{number}: {field}: {first['msg']}") from None
    return records


def list_videos(folder: str | Path) -> dict[str, Path]:
    """{path relative to the folder: file} for every video file under `folder`."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of videos")
    found = {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.suffix.lower() in VIDEO_SUFFIXES
    }
    if not found:
        raise InputError(f"{folder}: no video files ({', '.join(VIDEO_SUFFIXES)})")
    return found
