"""Reading a table of questions: one file (Parquet, CSV, TSV, JSONL, JSON) or a folder (a Hugging
Face `datasets` folder written by `save_to_disk`, or a hub snapshot holding Parquet shards), read
locally, never fetched.

Text tables go through the hardened reader of `vqakit.files` (`read_table`); Parquet and
`datasets` cells get the same value checks (`find_unusable`: whole numbers beyond 64 bits,
numbers that are not finite, NaN included, as in JSON, text with NUL characters). An empty
cell is null: pandas and pyarrow write a missing float as null, so a NaN is a value, and a
start or end of NaN is a problem of its row, never "no start". A binary cell holding UTF-8 text
is read as that text (so it gets the text checks); any other binary cell is kept as bytes, and
a row whose mapping reads one is refused, naming the cell (`binary_problem`), never shown as
`b'...'`. A record that cannot be used is left out and listed as `FILE:ROW[:COLUMN]: problem`;
only a file that cannot be read at all is a `SourceError` naming it.

Every record becomes a `SourceRow` with a `row` number that problem lines name: the line it
starts on for CSV, TSV and JSONL, its 1-based position for JSON, in its own Parquet file (a
shard of several) and in a datasets folder. A folder with several splits
(`test-00000-of-00001.parquet` and `validation-...`, or a `DatasetDict`) needs the split named;
one with a single split reads it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.extras import MissingExtra, install_line
from vqakit.files import InputError, find_unusable, one_line, parse_yaml, read_table, read_text, reading

TEXT_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "json",
}
_SHARD = re.compile(r"^(?P<split>.+?)-\d{5}-of-\d{5}$")


class SourceError(InputError):
    """A table cannot be read at all; the message names the file."""


@dataclass(frozen=True)
class SourceRow:
    row: int  # the line (CSV, TSV, JSONL) or the 1-based position (JSON, Parquet, datasets) in `file`
    data: dict[str, Any]
    file: Path | None = None  # the file it comes from (None: the source's path)


@dataclass
class Source:
    path: Path  # the file, or the folder, that was read
    format: str  # parquet, csv, tsv, jsonl, json, datasets
    split: str | None
    columns: list[str]
    rows: list[SourceRow] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # `FILE:ROW[:COLUMN]: problem` of records left out

    def where(self, row: SourceRow, column: str | None = None) -> str:
        """`FILE:ROW[:COLUMN]` for a problem line: the row's own file (a shard of several)."""
        return f"{row.file or self.path}:{row.row}" + (f":{column}" if column and column != "-" else "")


def _columns(rows: list[SourceRow]) -> list[str]:
    seen: dict[str, None] = {}
    for row in rows:
        seen.update(dict.fromkeys(row.data))
    return list(seen)


def _text_table(path: Path) -> Source:
    fmt = TEXT_SUFFIXES[path.suffix.lower()]
    try:
        table = read_table(path, fmt)  # type: ignore[arg-type]
    except InputError as error:
        raise SourceError(str(error)) from None
    rows = [SourceRow(record.row, record.data, path) for record in table.rows if record.data is not None]
    columns = table.columns if fmt in ("csv", "tsv") else _columns(rows)
    return Source(path, fmt, None, [c for c in columns if c], rows, table.row_problems())


def _cell(value: Any) -> Any:
    """An Arrow cell as a reader gives it: binary holding UTF-8 text as that text (other bytes
    as they are), in lists and structs too."""
    if isinstance(value, bytes | bytearray | memoryview):
        try:
            return bytes(value).decode("utf-8")
        except UnicodeDecodeError:
            return bytes(value)
    if isinstance(value, list):
        return [_cell(item) for item in value]
    if isinstance(value, dict):
        return {key: _cell(item) for key, item in value.items()}
    return value


def binary_problem(value: Any) -> str | None:
    """Why a cell (or an item in it) cannot be read as text: binary that is not UTF-8."""
    if isinstance(value, bytes):
        error = _utf8_error(value)
        return f"a binary cell that is not UTF-8 text (byte {value[error]:#04x} at {error}), not a text"
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return next((problem for item in items if (problem := binary_problem(item)) is not None), None)


def _utf8_error(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start
    return 0


def _checked_rows(
    file: Path, records: Iterable[dict[str, Any]], rows: list[SourceRow], problems: list[str]
) -> None:
    """Arrow records (Parquet, datasets) as rows numbered from 1 within `file`, each checked as
    the text reader checks its records; those holding a value that cannot be kept are listed."""
    for number, record in enumerate(records, start=1):
        data = {str(key): _cell(value) for key, value in record.items()}
        found = find_unusable(data)
        if found is not None:
            column, problem = found
            where = f"{file}:{number}" + (f":{column}" if column != "-" else "")
            problems.append(one_line(f"{where}: {problem}"))
            continue
        rows.append(SourceRow(number, data, file))


def _parquet(paths: list[Path], label: Path, split: str | None) -> Source:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise MissingExtra(
            f"{label}: reading Parquet needs the tables extra: {install_line('tables')}"
        ) from None

    rows: list[SourceRow] = []
    problems: list[str] = []
    columns: dict[str, None] = {}
    for path in paths:
        with reading(path):
            if not path.is_file():
                kind = "is a folder, not" if path.is_dir() else "is not"
                raise SourceError(f"{path}: {kind} a Parquet file")
            try:
                table = pq.read_table(path)
                records = table.to_pylist()
            except Exception as error:  # pyarrow raises several kinds for a damaged file
                raise SourceError(
                    f"{path}: not a readable Parquet file ({type(error).__name__}: {one_line(str(error))})"
                ) from None
            columns.update(dict.fromkeys(table.column_names))
            _checked_rows(path, records, rows, problems)
    return Source(label, "parquet", split, list(columns), rows, problems)


def _card_splits(folder: Path) -> dict[str, list[Path]] | None:
    """The default config's files by split, as the dataset card's YAML header lists them (the
    Hub reads a snapshot so); None without a card that lists them."""
    card = folder / "README.md"
    if not card.is_file():
        return None
    try:
        text = read_text(card)
        if not text.startswith("---"):
            return None
        header = parse_yaml(text.split("---", 2)[1], card) or {}
    except InputError:
        return None  # a card that cannot be read lists nothing: the shards' names say the splits
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
            try:
                matched = sorted(
                    p
                    for p in folder.glob(str(pattern))
                    if p.suffix == ".parquet" and p.is_relative_to(folder)
                )
            except (ValueError, NotImplementedError, OSError):  # empty, absolute or unusable pattern
                continue
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
        raise MissingExtra(
            f"{folder}: a datasets folder needs the tables extra: {install_line('tables')}"
        ) from None
    rows: list[SourceRow] = []
    problems: list[str] = []
    with reading(folder):
        try:
            loaded = datasets.load_from_disk(str(folder))
        except Exception as error:  # datasets and pyarrow raise several kinds for a damaged folder
            raise SourceError(
                f"{folder}: not a readable datasets folder ({type(error).__name__}: {one_line(str(error))})"
            ) from None
        if isinstance(loaded, datasets.DatasetDict):
            split = _choose(list(loaded), split, folder)
            loaded = loaded[split]
        try:
            records = list(loaded)
        except Exception as error:
            raise SourceError(
                f"{folder}: not a readable datasets folder ({type(error).__name__}: {one_line(str(error))})"
            ) from None
        _checked_rows(folder, records, rows, problems)
    return Source(folder, "datasets", split, list(loaded.column_names), rows, problems)


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
