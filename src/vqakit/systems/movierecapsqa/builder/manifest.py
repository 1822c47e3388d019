"""The recaps of a build: one given on the command line, or many in a manifest.

A manifest is a CSV with a header row, or JSONL (one object per line), with the columns

    video_id, movie_name, recap, recap_subtitles[, movie, movie_subtitles][, imdb_url, subtitle_url]

`recap` is the recap video, `recap_subtitles` its transcript (SRT or WebVTT: the segments are cut
by time, so a transcript without times cannot be used); `movie` and `movie_subtitles` are
optional (the movie subtitles need the movie, whose clock they share). Relative paths are read
from the manifest's folder. A malformed manifest is an `InputError` naming the file and line; a
file that is missing or unreadable is not: that recap is dropped at its stage, with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vqakit.builders import InputError
from vqakit.files import read_table
from vqakit.systems.movierecapsqa.builder.context import RecapInput

COLUMNS = (
    "video_id",
    "movie_name",
    "recap",
    "recap_subtitles",
    "movie",
    "movie_subtitles",
    "imdb_url",
    "subtitle_url",
)


class ManifestRow(BaseModel):
    model_config = ConfigDict(extra="forbid")

    video_id: str = Field(min_length=1, pattern=r"^[^\s:/\\]+$")
    movie_name: str = Field(min_length=1)
    recap: str = Field(min_length=1)
    recap_subtitles: str = Field(min_length=1)
    movie: str | None = None
    movie_subtitles: str | None = None
    imdb_url: str | None = None
    subtitle_url: str | None = None

    @field_validator("*", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.strip()
            return value or None
        return value

    @model_validator(mode="after")
    def _movie_first(self) -> ManifestRow:
        if self.movie_subtitles and not self.movie:
            raise ValueError("movie_subtitles needs movie: they are placed on the movie's clock by alignment")
        return self


def recap_input(row: ManifestRow, base: Path) -> RecapInput:
    def path(value: str | None) -> Path | None:
        return None if value is None else (base / value).expanduser().resolve()

    return RecapInput(
        video_id=row.video_id,
        movie_name=row.movie_name,
        recap=path(row.recap),  # type: ignore[arg-type]
        recap_subtitles=path(row.recap_subtitles),  # type: ignore[arg-type]
        movie=path(row.movie),
        movie_subtitles=path(row.movie_subtitles),
        imdb_url=row.imdb_url,
        subtitle_url=row.subtitle_url,
    )


def _problem(error: ValidationError) -> str:
    """`field: problem` of the first error (just the problem for a whole-row rule)."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _raw_rows(path: Path) -> list[tuple[int, Any]]:
    csv_file = path.suffix.lower() in (".csv", ".tsv")
    table = read_table(path, "auto" if csv_file else "jsonl")
    if csv_file:
        unknown = sorted(set(table.columns) - set(COLUMNS) - {""})
        if unknown:
            raise InputError(f"{path}:1: unknown columns {', '.join(unknown)} (known: {', '.join(COLUMNS)})")
    if table.problems:
        raise InputError(str(table.problems[0]))
    return [(record.line or record.number, record.data) for record in table.records]


def read_manifest(path: str | Path) -> list[RecapInput]:
    """The recaps of a CSV or JSONL manifest, in its order; ids must be unique."""
    path = Path(path)
    recaps: list[RecapInput] = []
    seen: dict[str, int] = {}
    for number, raw in _raw_rows(path):
        try:
            row = ManifestRow.model_validate(raw)
        except ValidationError as error:
            raise InputError(f"{path}:{number}: {_problem(error)}") from None
        if row.video_id in seen:
            raise InputError(f"{path}:{number}: video_id {row.video_id!r} repeats line {seen[row.video_id]}")
        seen[row.video_id] = number
        recaps.append(recap_input(row, path.parent))
    if not recaps:
        raise InputError(f"{path}: no recaps listed")
    return recaps


def single_recap(
    recap: str | Path,
    transcript: str | Path,
    *,
    video_id: str | None = None,
    movie_name: str | None = None,
    movie: str | Path | None = None,
    movie_subtitles: str | Path | None = None,
) -> RecapInput:
    """One recap given on the command line; the id defaults to the recap's file name and the
    movie name to the id."""
    recap = Path(recap)
    raw = {
        "video_id": video_id or recap.stem,
        "movie_name": movie_name or video_id or recap.stem,
        "recap": str(recap),
        "recap_subtitles": str(transcript),
        "movie": None if movie is None else str(movie),
        "movie_subtitles": None if movie_subtitles is None else str(movie_subtitles),
    }
    try:
        row = ManifestRow.model_validate(raw)
    except ValidationError as error:
        raise InputError(_problem(error)) from None
    return recap_input(row, Path.cwd())
