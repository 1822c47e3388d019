"""The four tables of the MovieRecapsQA release, read and written with their exact field names.

`TABLES_DIR/{recaps,segments,questions,facts}.json` (a JSON list of records; an object whose
values are records is read too) or `.jsonl` (one record per line). Fields:

- recaps: `video_id, movie_name, subtitle_url, imdb_url`
- segments: `video_id, segment_id, movie_start_time, movie_end_time, recap_start_time,
  recap_end_time, fact_ids` (movie times: seconds in the full movie's subtitle file, null
  where the segment was not aligned; recap times: seconds in the recap video, start before
  end; movie times out of order leave the segment unaligned rather than unread)
- questions: `video_id, segment_id, question_id, question, answer, verbose_question,
  vague_answer, aligned_fact_ids`
- facts: `fact_id, video_id, segment_id, fact`

Ids: `video_id` is a YouTube id (text); in the release `segment_id` is the segment's number
within its recap and `question_id` the question's number within its segment (the official
evaluation code parses both with `int()`), and `fact_id` is one id across the release. Ids are
kept as written (a whole number or a text) and matched by their text form (`id_key`), so `3`
and `"3"` name the same segment. Times are seconds (a number) or `HH:MM:SS(.mmm)` text.
Fields beyond these are kept and written back (a builder may add `category` and `modality`).

A record that does not fit is listed in `ReleaseTables.problems` as
`FILE: record N (ids): field: problem` and left out; a file that is missing or cannot be
read as a whole is a `TablesError`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from vqakit.files import InputError, read_table, write_text_atomic

TABLES = ("recaps", "segments", "questions", "facts")
_CLOCK = re.compile(r"^(?:(\d+):)?(\d{1,2}):(\d{1,2}(?:[.,]\d+)?)$")


class TablesError(ValueError):
    """A release table cannot be read at all; the message names the file."""


def parse_time(value: Any) -> float:
    """Seconds from a number or an `HH:MM:SS(.mmm)` (or `MM:SS`) text."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"{value!r} is not a time (seconds or HH:MM:SS.mmm)")
    if isinstance(value, str):
        text = value.strip()
        match = _CLOCK.match(text)
        if match:
            hours, minutes, seconds = match.groups()
            value = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds.replace(",", "."))
        else:
            try:
                value = float(text)
            except ValueError:
                raise ValueError(f"{text!r} is not a time (seconds or HH:MM:SS.mmm)") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"{value!r} is not a time: seconds must be finite and not negative")
    return float(value)


def _time_or_none(value: Any) -> float | None:
    return None if value is None or (isinstance(value, str) and not value.strip()) else parse_time(value)


def _id(value: Any) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError(f"{value!r} is not an id (a whole number or a text)")
    if isinstance(value, str) and not value.strip():
        raise ValueError("an id may not be empty")
    return value


def _text_id(value: Any) -> str:
    return str(_id(value)).strip()


def id_key(value: int | str) -> str:
    """The text form ids are matched by: `3` and `"3"` are the same id."""
    return str(value).strip()


Id = Annotated[int | str, BeforeValidator(_id)]
VideoId = Annotated[str, BeforeValidator(_text_id)]
Seconds = Annotated[float, BeforeValidator(parse_time)]
MaybeSeconds = Annotated[float | None, BeforeValidator(_time_or_none)]
Text = Annotated[str, Field(min_length=1)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class Recap(_Record):
    video_id: VideoId
    movie_name: Text
    subtitle_url: str | None = None
    imdb_url: str | None = None


class Segment(_Record):
    video_id: VideoId
    segment_id: Id
    movie_start_time: MaybeSeconds = None
    movie_end_time: MaybeSeconds = None
    recap_start_time: Seconds
    recap_end_time: Seconds
    fact_ids: list[Id] = []

    @model_validator(mode="after")
    def _recap_window(self) -> Segment:
        if self.recap_start_time >= self.recap_end_time:
            raise ValueError(f"recap_start_time ({self.recap_start_time:g}) must be before recap_end_time")
        return self

    @property
    def movie_window(self) -> tuple[float, float] | None:
        """The aligned movie window; None where the segment was not aligned, or its movie times
        are half given or out of order (the importer notes which)."""
        start, end = self.movie_start_time, self.movie_end_time
        return (start, end) if start is not None and end is not None and start < end else None


class Question(_Record):
    video_id: VideoId
    segment_id: Id
    question_id: Id
    question: Text
    answer: Text
    verbose_question: str | None = None
    vague_answer: str | None = None
    aligned_fact_ids: list[Id] = []

    @property
    def key(self) -> str:
        """`video_id.segment_id.question_id`, the id the official evaluation code uses."""
        return f"{self.video_id}.{id_key(self.segment_id)}.{id_key(self.question_id)}"


class Fact(_Record):
    fact_id: Id
    video_id: VideoId
    segment_id: Id
    fact: Text


MODELS: dict[str, type[_Record]] = {
    "recaps": Recap,
    "segments": Segment,
    "questions": Question,
    "facts": Fact,
}
_KEYS = {
    "recaps": ("video_id",),
    "segments": ("video_id", "segment_id"),
    "questions": ("video_id", "segment_id", "question_id"),
    "facts": ("fact_id",),
}


@dataclass
class ReleaseTables:
    recaps: list[Recap] = field(default_factory=list)
    segments: list[Segment] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # records left out: "FILE: record N (ids): ..."
    # question key -> 0-based position in the questions file (the official code's `question_idx`)
    question_positions: dict[str, int] = field(default_factory=dict)


def _table_file(folder: Path, name: str) -> Path | None:
    candidates = (folder / f"{name}.json", folder / f"{name}.jsonl")
    for path in candidates:
        if path.exists() and not path.is_file():
            raise TablesError(f"{path}: a folder (or not a regular file), not a table file")
    found = [path for path in candidates if path.is_file()]
    if len(found) > 1:
        raise TablesError(f"{folder}: both {name}.json and {name}.jsonl; keep one")
    return found[0] if found else None


def _raw_records(path: Path) -> list[tuple[str, Any]]:
    """(where, record) pairs: `record N` of a JSON file, `line N` of a JSONL file; a record the
    reader refused stands as the ValueError saying why."""
    try:
        table = read_table(path, "jsonl" if path.suffix == ".jsonl" else "json")
    except InputError as error:
        raise TablesError(str(error)) from None
    found: list[tuple[str, Any]] = []
    for record in table.records:
        where = f"line {record.line}" if record.line else f"record {record.number}"
        problem = record.problem
        found.append(
            (where, record.data if problem is None else ValueError(f"{problem.field}: {problem.message}"))
        )
    return found


def _ids(name: str, record: Any) -> str:
    if not isinstance(record, dict):
        return ""
    shown = [f"{key}={record[key]}" for key in _KEYS[name] if key in record]
    return f" ({', '.join(shown)})" if shown else ""


def _read_table(path: Path, name: str, problems: list[str]) -> list[tuple[int, Any]]:
    """(position in the file, record) of every record that fits."""
    model, records, seen = MODELS[name], [], {}
    for position, (where, raw) in enumerate(_raw_records(path)):
        place = f"{path.name}: {where}{_ids(name, raw)}"
        if isinstance(raw, Exception):
            problems.append(f"{place}: {raw}")
            continue
        if not isinstance(raw, dict):
            problems.append(f"{place}: not a JSON object")
            continue
        try:
            record = model.model_validate(raw)
        except ValidationError as error:
            for item in error.errors():
                where_in = ".".join(str(part) for part in item["loc"]) or "record"
                problems.append(f"{place}: {where_in}: {item['msg'].removeprefix('Value error, ')}")
            continue
        key = tuple(id_key(getattr(record, part)) for part in _KEYS[name])
        if key in seen:
            problems.append(f"{place}: repeats {seen[key]}; left out")
            continue
        seen[key] = where
        records.append((position, record))
    return records


def read_tables(folder: str | Path) -> ReleaseTables:
    """The four tables of `folder`; records that do not fit are listed, not read."""
    folder = Path(folder)
    if not folder.is_dir():
        raise TablesError(f"{folder}: not a folder of release tables")
    files = {name: _table_file(folder, name) for name in TABLES}
    missing = [f"{name}.json" for name, path in files.items() if path is None]
    if missing:
        raise TablesError(f"{folder}: missing {', '.join(missing)} (JSON lists of records, or .jsonl)")
    tables = ReleaseTables()
    for name, path in files.items():
        read = _read_table(path, name, tables.problems)
        setattr(tables, name, [record for _, record in read])
        if name == "questions":
            tables.question_positions = {record.key: position for position, record in read}
    return tables


def write_tables(folder: str | Path, tables: ReleaseTables) -> dict[str, Path]:
    """Write the four tables as `<name>.json` JSON lists (the release's shape), atomically; a
    `<name>.jsonl` left there is removed, since a folder may hold only one form of a table."""
    folder = Path(folder)
    written = {}
    for name in TABLES:
        records = [record.model_dump(mode="json") for record in getattr(tables, name)]
        text = json.dumps(records, ensure_ascii=False, indent=1) + "\n"
        written[name] = write_text_atomic(folder / f"{name}.json", text)
        (folder / f"{name}.jsonl").unlink(missing_ok=True)
    return written
