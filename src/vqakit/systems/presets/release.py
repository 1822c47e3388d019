"""What every preset shares: its mapping file (beside the code, in `mappings/`), the release's
JSON files read by the hardened reader of `vqakit.files` (`release_records`, `release_object`),
rows it builds itself as a table `Source`, and the import through the generic table importer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.files import InputError, json_records, read_json, read_text
from vqakit.tables import (
    ImportHooks,
    Source,
    SourceRow,
    TableImport,
    TableMapping,
    default_card,
    import_rows,
    load_mapping,
)

MAPPINGS = Path(__file__).parent / "mappings"


def preset_mapping(name: str) -> TableMapping:
    """The mapping of preset `name` (`mappings/<name>.yaml`), card and protocol included."""
    return load_mapping(MAPPINGS / f"{name}.yaml")


def release_object(path: Path, what: str) -> dict[str, Any]:
    """A release's JSON object (an answer key, an id map); InputError naming the file when it
    cannot be read or is not an object. Its values may be `Unusable`: check those used."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object of {what}, not {type(data).__name__}")
    return data


def release_records(
    path: Path, what: str = "questions"
) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """(position, record) of each usable record of a release's JSON list of `what`, and a
    `FILE:ROW[:COLUMN]: problem` line for each other one (not an object, or holding a value
    the reader refuses). InputError naming the file when it cannot be read or is no list."""
    data = read_json(path)
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of {what}, not {type(data).__name__}")
    table = json_records(path, data)
    rows = [(record.row, record.data) for record in table.rows if record.data is not None]
    return rows, table.row_problems()


def subtitle_text(path: Path) -> str:
    """A subtitle file's text (any byte-order mark, any line end), with bytes that are not UTF-8
    shown as U+FFFD as players show them; InputError naming the file when it cannot be read."""
    text = read_text(path, strict=False)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def rows_source(
    path: Path,
    rows: list[tuple[Path, int, dict[str, Any]]],
    *,
    split: str | None = None,
    problems: list[str] | None = None,
    fmt: str = "json",
) -> Source:
    """Rows a preset built from its release, as one table: (file, position in it, data) each,
    so problems name the file and record they come from. `fmt` is the release's format (`csv`
    cells are text, and metadata cells that spell numbers become numbers)."""
    columns = list(dict.fromkeys(key for _, _, row in rows for key in row))
    source_rows = [SourceRow(number, row, file) for file, number, row in rows]
    return Source(path, fmt, split, columns, source_rows, problems or [])


def import_release(
    name: str,
    source: Source,
    videos: Path,
    out: Path,
    *,
    subtitles: Path | None = None,
    hooks: ImportHooks | None = None,
    card: dict[str, Any] | None = None,
) -> TableImport:
    """Import `source` with preset `name`'s mapping; `card` adds to the mapping's card."""
    mapping = preset_mapping(name)
    merged = default_card(mapping, str(mapping.card.get("name", name)), source)
    merged.update(card or {})
    return import_rows(
        source,
        mapping,
        videos,
        out,
        subtitles_dir=subtitles,
        card=merged,
        hooks=hooks,
        writer=f"import {name}",
    )


def first_existing(*paths: Path) -> Path | None:
    return next((path for path in paths if path.exists()), None)


def split_of(split: str | None, splits: tuple[str, ...]) -> str:
    """The split asked for, or the preset's default (the first)."""
    if split is not None and split not in splits:
        raise ValueError(f"split {split!r}: choose one of {', '.join(splits)}")
    return split or splits[0]
