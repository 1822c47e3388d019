"""What every preset shares: its mapping file (beside the code, in `mappings/`), rows it builds
itself as a table `Source`, and the import through the generic table importer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

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
    return import_rows(source, mapping, videos, out, subtitles_dir=subtitles, card=merged, hooks=hooks)


def first_existing(*paths: Path) -> Path | None:
    return next((path for path in paths if path.exists()), None)


def split_of(split: str | None, splits: tuple[str, ...]) -> str:
    """The split asked for, or the preset's default (the first)."""
    if split is not None and split not in splits:
        raise ValueError(f"split {split!r}: choose one of {', '.join(splits)}")
    return split or splits[0]
