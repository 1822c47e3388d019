"""The one place this package reads JSON, JSONL, CSV and TSV text (until the hardened reader of
`vqakit.files` replaces it): records with their line or position, and the records that could
not be read, each as `FILE:ROW: problem`. A byte-order mark is accepted, CR, LF and CR LF end
lines, CSV cells may be as large as the file."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

Records = list[tuple[int, dict[str, Any]]]


def _text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ValueError(f"{path}: cannot read ({error.strerror or error})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not UTF-8 text (byte {error.start})") from None


def read_document(path: str | Path) -> Any:
    """One JSON document (a release's answers or id map). ValueError naming the file."""
    path = Path(path)
    try:
        return json.loads(_text(path))
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{error.lineno}: invalid JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply") from None


def _delimited(path: Path, text: str, delimiter: str) -> tuple[Records, list[str]]:
    csv.field_size_limit(max(csv.field_size_limit(), min(len(text) + 1, 2**31 - 1)))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    records: Records = []
    problems: list[str] = []
    header: list[str] | None = None
    start = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as error:
            problems.append(f"{path}:{start}: not readable ({error})")
            start = reader.line_num + 1
            continue
        line, start = start, reader.line_num + 1
        if not any(cell.strip() for cell in cells):
            continue
        if header is None:
            header = [cell.strip() for cell in cells]
            continue
        if len(cells) > len(header):
            problems.append(f"{path}:{line}: {len(cells)} cells for {len(header)} columns")
            continue
        records.append((line, dict(zip(header, cells, strict=False))))
    if header is None:
        raise ValueError(f"{path}: no header row")
    return records, problems


def _json_lines(path: Path, text: str) -> tuple[Records, list[str]]:
    records: Records = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as error:
            problems.append(f"{path}:{number}: invalid JSON ({getattr(error, 'msg', 'nested too deeply')})")
            continue
        if not isinstance(value, dict):
            problems.append(f"{path}:{number}: a record must be a JSON object, not {type(value).__name__}")
            continue
        records.append((number, value))
    return records, problems


def _json_records(path: Path, text: str) -> tuple[Records, list[str]]:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}:{error.lineno}: invalid JSON ({error.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply") from None
    if isinstance(document, dict) and document and all(isinstance(v, dict) for v in document.values()):
        document = list(document.values())  # an object of records, keyed by id
    if isinstance(document, dict):
        document = [document]
    if not isinstance(document, list):
        raise ValueError(f"{path}: expected a list of records, got {type(document).__name__}")
    records: Records = []
    problems: list[str] = []
    for number, value in enumerate(document, start=1):
        if isinstance(value, dict):
            records.append((number, value))
        else:
            problems.append(f"{path}:{number}: a record must be a JSON object, not {type(value).__name__}")
    return records, problems


def read_records(path: str | Path, fmt: str) -> tuple[Records, list[str]]:
    """(records with their row, problems) of a `csv`, `tsv`, `jsonl` or `json` file."""
    path = Path(path)
    text = _text(path)
    if fmt in ("csv", "tsv"):
        return _delimited(path, text, "\t" if fmt == "tsv" else ",")
    if fmt == "jsonl":
        return _json_lines(path, text)
    return _json_records(path, text)
