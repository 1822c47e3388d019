"""Tables of records: CSV, TSV, JSONL, or JSON (a list of records, an object of records, or one
record), each record a dict, each bad record skipped and listed with its line.

CSV and TSV go through the `csv` module with a field limit of the file's size, universal line
ends (CR, LF, CR LF) and quoted cells that span lines; the first row is the header. JSONL lines
and JSON records go through `parse_json`. A record is refused, with an `InputProblem`, when it
cannot be parsed, is not an object, has more cells than the header, or holds a value
`find_unusable` names (bytes that are not UTF-8 included); the file as a whole fails
(`InputError`) only when nothing in it can be read: not found, not JSON at all, no header.

Each record knows its `row` (the line it starts on, or its position in a JSON document), so a
table importer can name a cell as `FILE:ROW:COLUMN` (`Table.where`, `Table.row_problems`).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vqakit.files._decode import bad_byte, decode, read_bytes, split_lines
from vqakit.files._json import JSONError, parse_json, parse_json_record
from vqakit.files._problems import InputError, InputProblem, one_line
from vqakit.files._values import find_unusable, text_problem

TableFormat = Literal["csv", "tsv", "jsonl", "json"]
TABLE_FORMATS: tuple[TableFormat, ...] = ("csv", "tsv", "jsonl", "json")
_SUFFIXES: dict[str, TableFormat] = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}


@dataclass(frozen=True)
class Row:
    """One row of a CSV or TSV file: its cells, or why it cannot be read."""

    line: int  # the line it starts on (a quoted cell may span lines)
    cells: list[str]
    problem: str | None = None
    cell: int | None = None  # the 0-based index of the cell the problem is in, where one is


@dataclass(frozen=True)
class Record:
    """One record of a table; `data` is None when it cannot be read (`problem` says why)."""

    number: int  # 1-based position among the file's records
    line: int | None  # the line it starts on (None inside a JSON document)
    key: str | None  # its key in a JSON object of records
    data: dict[str, Any] | None
    problem: InputProblem | None = None
    column: str | None = None  # the column of the cell at fault, where one is (CSV, TSV)

    @property
    def name(self) -> str:
        """How a problem line names it: its key, else its number."""
        return self.key if self.key is not None else str(self.number)

    @property
    def row(self) -> int:
        """The row a `FILE:ROW:COLUMN` line names: the line it starts on (CSV, TSV, JSONL), else
        its 1-based position among the file's records (JSON)."""
        return self.line if self.line is not None else self.number


@dataclass
class Table:
    path: Path
    format: TableFormat
    columns: list[str]  # the header of a CSV or TSV file; the keys met, in order, otherwise
    records: list[Record] = field(default_factory=list)

    @property
    def rows(self) -> list[Record]:
        """The records that can be read."""
        return [record for record in self.records if record.data is not None]

    @property
    def problems(self) -> list[InputProblem]:
        return [record.problem for record in self.records if record.problem is not None]

    def where(self, record: Record, column: str | None = None) -> str:
        """`FILE:ROW[:COLUMN]`: a record, or one of its cells, as a table's problem line names it."""
        return f"{self.path}:{record.row}" + (f":{column}" if column and column != "-" else "")

    def row_problems(self) -> list[str]:
        """The problems of the records that cannot be read, as `FILE:ROW[:COLUMN]: problem`
        lines (one line each: control characters written as escapes)."""
        return [
            one_line(f"{self.where(record, record.column or record.problem.field)}: {record.problem.message}")
            for record in self.records
            if record.problem is not None
        ]


def _raise_field_limit(size: int) -> None:
    if csv.field_size_limit() < size:
        csv.field_size_limit(min(size, 2**31 - 1))


def parse_rows(text: str, *, delimiter: str = ",") -> list[Row]:
    """The non-blank rows of CSV (or, with a tab `delimiter`, TSV) text. A row holding bytes that
    were not UTF-8, a NUL character, or that the csv module refuses carries its `problem`."""
    _raise_field_limit(len(text) + 1)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows: list[Row] = []
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            rows.append(
                Row(start, [], f"not readable as {'TSV' if delimiter == chr(9) else 'CSV'} ({error})")
            )
            if reader.line_num < start:
                break
            start = reader.line_num + 1
            continue
        found = next(
            ((i, why) for i, cell in enumerate(cells) if (why := bad_byte(cell) or text_problem(cell))),
            (None, None),
        )
        if any(cell.strip() for cell in cells) or found[1]:
            rows.append(Row(start, cells, found[1], found[0]))
        start = reader.line_num + 1
    return rows


def _csv_table(path: Path, text: str, format: TableFormat) -> Table:
    rows = parse_rows(text, delimiter="\t" if format == "tsv" else ",")
    if not rows:
        return Table(path, format, [])
    head = rows[0]
    if head.problem:
        raise InputError(f"{path}:{head.line}: the header row: {head.problem}")
    columns = [cell.strip() for cell in head.cells]
    for number, name in enumerate(columns):
        if name and name in columns[:number]:
            raise InputError(f"{path}:{head.line}: column {name!r} appears twice in the header")
    table = Table(path, format, columns)
    for number, row in enumerate(rows[1:], start=1):
        problem = row.problem
        if problem is None and len(row.cells) > len(columns):
            problem = f"{len(row.cells)} cells, but the header has {len(columns)} columns"
        if problem is not None:
            column = columns[row.cell] if row.cell is not None and row.cell < len(columns) else None
            table.records.append(
                Record(
                    number,
                    row.line,
                    None,
                    None,
                    InputProblem(str(path), row.line, None, "-", problem),
                    column or None,
                )
            )
            continue
        cells = row.cells + [""] * (len(columns) - len(row.cells))
        data = {name: cell for name, cell in zip(columns, cells, strict=True) if name}
        table.records.append(Record(number, row.line, None, data))
    return table


def _record(
    path: Path, number: int, line: int | None, key: str | None, value: Any, *, clean: bool = False
) -> Record:
    """A record; `clean`: the JSON reader vouches that it holds nothing to refuse."""
    record = str(key) if key is not None else (None if line is not None else str(number))
    if not isinstance(value, dict):
        message = "each line must be a JSON object" if line is not None else "not a JSON object"
        problem = InputProblem(str(path), line, record, "-", message)
        return Record(number, line, key, None, problem)
    if not clean and (found := find_unusable(value)):
        return Record(number, line, key, None, InputProblem(str(path), line, record, *found))
    return Record(number, line, key, value)


def _jsonl_table(path: Path, text: str) -> Table:
    table = Table(path, "jsonl", [])
    number = 0
    for line, content in enumerate(split_lines(text), start=1):
        if not content.strip():
            continue
        number += 1
        table.records.append(jsonl_record(path, number, line, content))
    return table


def jsonl_record(path: Path, number: int, line: int, content: str) -> Record:
    """The record of one non-blank JSONL line (its text as `decode` gives it): what every JSONL
    reader makes of a line, also one that reads a large file line by line."""
    try:
        value, clean = parse_json_record(content)
    except JSONError as error:
        message = (
            error.message
            if error.message.startswith("not UTF-8")
            else f"malformed JSON ({error.message} at column {error.column})"
        )
        return Record(number, line, None, None, InputProblem(str(path), line, None, "-", message))
    return _record(path, number, line, None, value, clean=clean)


def json_records(path: Path, data: Any) -> Table:
    """A parsed JSON document as a table: a list of records, an object whose values are
    objects (records by key; a value that is not an object is a record's problem), or an object
    of plain values (one record)."""
    table = Table(path, "json", [])
    if isinstance(data, list):
        items: list[tuple[str | None, Any]] = [(None, item) for item in data]
    elif isinstance(data, dict) and any(isinstance(item, dict) for item in data.values()):
        items = [(str(key), item) for key, item in data.items()]
    elif isinstance(data, dict):
        items = [(None, data)]
    else:
        raise InputError(f"{path}: expected a JSON list of records or an object, not {type(data).__name__}")
    table.records = [
        _record(path, number, None, key, item) for number, (key, item) in enumerate(items, start=1)
    ]
    return table


_UNPARSED = object()


def _sniff(text: str, path: Path) -> tuple[TableFormat, Any]:
    """(format, the parsed JSON document when sniffing parsed it, else `_UNPARSED`)."""
    suffix = path.suffix.lower()
    if suffix in _SUFFIXES:
        return _SUFFIXES[suffix], _UNPARSED
    start = text.lstrip()[:1]
    if start == "[":
        return "json", _UNPARSED
    if start == "{":
        try:
            return "json", parse_json(text)
        except JSONError as error:
            single = error.line == 1 and len(split_lines(text.strip())) == 1
            return ("json" if single else "jsonl"), _UNPARSED
    first = split_lines(text.lstrip("\r\n"))[:1]
    return ("tsv" if first and "\t" in first[0] and "," not in first[0] else "csv"), _UNPARSED


def sniff_format(text: str, path: str | Path = "") -> TableFormat:
    """The table format of `text`: by the file's suffix where it says (.csv .tsv .tab .jsonl
    .ndjson), else by content: JSON when the whole text parses (or starts with `[`), JSONL when
    it starts with `{` and does not, TSV when the first line has tabs and no commas, else CSV."""
    return _sniff(text, Path(path))[0]


def _columns(table: Table) -> Table:
    if not table.columns:
        table.columns = list(dict.fromkeys(key for record in table.rows for key in record.data or {}))
    return table


def parse_table(text: str, path: str | Path, format: TableFormat | Literal["auto"] = "auto") -> Table:
    """`text` (read from `path`, which problems name) as a table of records."""
    path = Path(path)
    chosen, data = _sniff(text, path) if format == "auto" else (format, _UNPARSED)
    if chosen in ("csv", "tsv"):
        return _csv_table(path, text, chosen)
    if chosen == "jsonl":
        return _columns(_jsonl_table(path, text))
    if data is _UNPARSED:
        try:
            data = parse_json(text)
        except JSONError as error:
            where = f"{path}:{error.line}"
            raise InputError(f"{where}: not valid JSON ({error.message} at column {error.column})") from None
    return _columns(json_records(path, data))


def read_table(path: str | Path, format: TableFormat | Literal["auto"] = "auto") -> Table:
    """The records of a CSV, TSV, JSONL or JSON file (`format` "auto": by suffix, then content).
    Raises `InputError` naming the file only when no record can be read at all."""
    path = Path(path)
    return parse_table(decode(read_bytes(path), path), path, format)


def read_rows(path: str | Path, *, delimiter: str = ",") -> list[Row]:
    """The rows of a CSV (or TSV) file without a header row, e.g. `code,name` lines."""
    path = Path(path)
    return parse_rows(decode(read_bytes(path), path), delimiter=delimiter)
