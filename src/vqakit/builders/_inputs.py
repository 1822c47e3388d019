"""Reading builder inputs: JSONL records checked against a schema, and folders of videos. Every
error names the file (and line) to fix; files are read with the hardened reader of `files`."""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from vqakit.files import InputError, InputProblem, read_table, reading

VIDEO_SUFFIXES = (".mp4", ".mkv", ".mov", ".webm", ".avi")

Record = TypeVar("Record", bound=BaseModel)


def _first_error(error: ValidationError) -> tuple[str, str]:
    first = error.errors()[0]
    field = ".".join(str(part) for part in first["loc"]) or "-"
    return field, str(first["msg"]).removeprefix("Value error, ")


def read_records(
    path: str | Path, schema: type[Record], problems: list[InputProblem] | None = None
) -> list[Record]:
    """One `schema` record per non-blank line of a JSONL file. A bad line is an `InputError`
    saying `FILE:LINE: field: problem`; with a `problems` list it is added there and skipped
    instead, and the other lines are read."""
    path = Path(path)
    with reading(path):
        table = read_table(path, "jsonl")
        records = []
        for record in table.records:
            problem = record.problem
            if problem is None:
                try:
                    records.append(schema.model_validate(record.data))
                    continue
                except ValidationError as error:
                    problem = InputProblem(str(path), record.line, None, *_first_error(error))
            if problems is None:
                raise InputError(str(problem))
            problems.append(problem)
        return records


def list_videos(folder: str | Path) -> dict[str, Path]:
    """{path relative to the folder: file} for every video file under `folder` (links to files
    are listed under their own name; links to folders are not followed; a folder named like a
    video is not a video)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of videos")
    found = {
        path.relative_to(folder).as_posix(): path
        for path in sorted(folder.rglob("*"))
        if path.suffix.lower() in VIDEO_SUFFIXES and path.is_file()
    }
    if not found:
        raise InputError(f"{folder}: no video files ({', '.join(VIDEO_SUFFIXES)})")
    return found
