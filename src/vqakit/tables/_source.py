"""Reading a table of questions: one file (Parquet, CSV, TSV, JSONL, JSON) or a folder (a Hugging
Face `datasets` folder written by `save_to_disk`, or a hub snapshot holding Parquet shards), read
locally, never fetched.

Every record becomes a `SourceRow` with a `row` number that problem lines name: the line it
starts on for CSV, TSV and JSONL, its 1-based position for JSON, Parquet and datasets folders.
A folder with several splits (`test-00000-of-00001.parquet` and `validation-...`, or a
`DatasetDict`) needs the split named; one with a single split reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from vqakit.extras import install_line
from vqakit.tables._records import read_records

TEXT_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
_SHARD = re.compile(r"^(?P<split>.+?)-\d{5}-of-\d{5}$")


class SourceError(ValueError):
    """A table cannot be read at all; the message names the file."""


@dataclass(frozen=True)
class SourceRow:
    row: int  # the line (CSV, TSV, JSONL) or the 1-based position (JSON, Parquet, datasets)
    data: dict[str, Any]
    file: Path | None = None  # the file it comes from, where a table spans files


@dataclass
class Source:
    path: Path  # the file, or the folder, that was read
    format: str  # parquet, csv, tsv, jsonl, json, datasets
    split: str | None
    columns: list[str]
    rows: list[SourceRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # `FILE:ROW: problem` of records left out
    files: dict[int, Path] = field(default_factory=dict)  # first row number -> file, for shards

    def where(self, row: SourceRow, column: str | None = None) -> str:
        """`FILE:ROW[:COLUMN]` for a problem line."""
        file = row.file or self.path
        for first, path in sorted(self.files.items()):
            if row.file is None and row.row >= first:
                file = path
        return f"{file}:{row.row}" + (f":{column}" if column else "")


def _columns(rows: list[SourceRow]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row.data))
    return list(seen)


def _text_table(path: Path) -> Source:
    fmt = TEXT_SUFFIXES[path.suffix.lower()]
    records, problems = read_records(path, fmt)
    rows = [SourceRow(row, data) for row, data in records]
    return Source(path, fmt, None, _columns(rows), rows, problems)


def _arrow_rows(batches: Iterator[dict[str, Any]], start: int = 1) -> list[SourceRow]:
    return [SourceRow(number, dict(record)) for number, record in enumerate(batches, start=start)]


def _parquet(paths: list[Path], label: Path, split: str | None) -> Source:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise SourceError(
            f"{label}: reading Parquet needs the tables extra: {install_line('tables')}"
        ) from None

    rows: list[SourceRow] = []
    files: dict[int, Path] = {}
    for path in paths:
        try:
            table = pq.read_table(path)
        except Exception as error:  # pyarrow raises several kinds for a damaged file
            raise SourceError(
                f"{path}: not a readable Parquet file ({type(error).__name__}: {error})"
            ) from None
        files[len(rows) + 1] = path
        rows += _arrow_rows(iter(table.to_pylist()), start=len(rows) + 1)
    source = Source(label, "parquet", split, _columns(rows), rows)
    if len(paths) > 1:
        source.files = files
    return source


def _card_splits(folder: Path) -> dict[str, list[Path]] | None:
    """The default config's files by split, as the dataset card's YAML header lists them (the
    Hub reads a snapshot so); None without a card that lists them."""
    card = folder / "README.md"
    if not card.is_file():
        return None
    text = card.read_text(encoding="utf-8", errors="replace")
    if not text.startswith("---"):
        return None
    try:
        header = yaml.safe_load(text.split("---", 2)[1]) or {}
    except yaml.YAMLError:
        return None
    configs = header.get("configs") if isinstance(header, dict) else None
    if not isinstance(configs, list) or not configs:
        return None
    chosen = next(
        (
            c
            for c in configs
            if isinstance(c, dict) and (c.get("default") or c.get("config_name") == "default")
        ),
        configs[0],
    )
    files = chosen.get("data_files") if isinstance(chosen, dict) else None
    if isinstance(files, str | list) and not (
        isinstance(files, list) and files and isinstance(files[0], dict)
    ):
        files = [{"split": "train", "path": files}]
    found: dict[str, list[Path]] = {}
    for entry in files or []:
        patterns = entry.get("path") if isinstance(entry, dict) else None
        for pattern in [patterns] if isinstance(patterns, str) else patterns or []:
            matched = sorted(
                p for p in folder.glob(str(pattern)) if p.suffix == ".parquet" and p.is_relative_to(folder)
            )
            found.setdefault(str(entry.get("split", "train")), []).extend(matched)
    return {split: paths for split, paths in found.items() if paths} or None


def _splits(folder: Path) -> dict[str, list[Path]]:
    """Parquet shards under a hub snapshot folder, by split: as its dataset card's header lists
    them, else by their names (`test-00000-of-00002.parquet`)."""
    listed = _card_splits(folder)
    if listed is not None:
        return listed
    found: dict[str, list[Path]] = {}
    for path in sorted(folder.rglob("*.parquet")):
        if any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        match = _SHARD.match(path.stem)
        found.setdefault(match["split"] if match else path.stem, []).append(path)
    return found


def _choose(splits: list[str], split: str | None, where: Path) -> str:
    if split is not None:
        if split not in splits:
            raise SourceError(f"{where}: no split {split!r}; it has {', '.join(splits)}")
        return split
    if len(splits) != 1:
        raise SourceError(f"{where}: {len(splits)} splits ({', '.join(splits)}): choose one with --split")
    return splits[0]


def _datasets_folder(folder: Path, split: str | None) -> Source:
    try:
        import datasets
    except ImportError:
        raise SourceError(
            f"{folder}: a datasets folder needs the tables extra: {install_line('tables')}"
        ) from None
    try:
        loaded = datasets.load_from_disk(str(folder))
    except Exception as error:
        raise SourceError(
            f"{folder}: not a readable datasets folder ({type(error).__name__}: {error})"
        ) from None
    if isinstance(loaded, datasets.DatasetDict):
        split = _choose(list(loaded), split, folder)
        loaded = loaded[split]
    rows = _arrow_rows(iter(loaded))
    return Source(folder, "datasets", split, list(loaded.column_names), rows)


def read_source(path: str | Path, split: str | None = None) -> Source:
    """The rows of a table file or folder. SourceError when it cannot be read at all; records
    that cannot be read are listed in `problems` and left out."""
    path = Path(path)
    if path.is_dir():
        if (path / "dataset_dict.json").is_file() or (path / "state.json").is_file():
            return _datasets_folder(path, split)
        shards = _splits(path)
        if not shards:
            raise SourceError(f"{path}: no Parquet file and no datasets folder (save_to_disk) here")
        chosen = _choose(list(shards), split, path)
        return _parquet(shards[chosen], path, chosen)
    if not path.is_file():
        raise SourceError(f"{path}: file not found")
    if path.suffix.lower() == ".parquet":
        return _parquet([path], path, split)
    if path.suffix.lower() not in TEXT_SUFFIXES:
        known = ", ".join(sorted({".parquet", *TEXT_SUFFIXES}))
        raise SourceError(f"{path}: unknown table format {path.suffix!r} (known: {known}, or a folder)")
    return _text_table(path)
