"""JSON text to Python values without a value that can fail a whole file (see `_values`).

The standard library parses (it is fast and exact); its hooks turn numbers beyond 64 bits,
infinite numbers and NaN into `Unusable` values. Nesting deeper than the parser can follow is cut
at `MAX_DEPTH` levels and stands as an `Unusable` too, so one record nested 200,000 levels deep is
that record's problem, not the file's.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from vqakit.files._decode import decode, read_bytes
from vqakit.files._problems import InputError, reading
from vqakit.files._values import INT_RANGE, MAX_DEPTH, Unusable, mark_unusable

_TOO_DEEP = "\x00vqakit: nested too deeply\x00"
_TOO_DEEP_JSON = json.dumps(_TOO_DEEP)
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.DOTALL)
# What may hide a value `mark_unusable` must replace: escapes of NUL or of surrogates, and bytes
# that were not UTF-8 (kept as U+DC80-U+DCFF by `decode`).
_SUSPECT = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})|[\udc80-\udcff]")


class JSONError(ValueError):
    """Text that is not JSON; `line` and `column` are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} (line {line} column {column})")
        self.message, self.line, self.column = message, line, column


def _shown(text: str) -> str:
    return text if len(text) <= 24 else f"{text[:12]}...({len(text)} digits)"


_REFUSED = [0]  # numbers the hooks refused, ever (only grows: `parse_json_record` compares)


def _refused(reason: str) -> Unusable:
    _REFUSED[0] += 1
    return Unusable(reason)


def _parse_int(text: str) -> int | Unusable:
    if len(text) <= 20:
        value = int(text)
        if INT_RANGE[0] <= value < INT_RANGE[1]:
            return value
    return _refused(f"number {_shown(text)} does not fit in 64 bits")


def _parse_float(text: str) -> float | Unusable:
    value = float(text)
    return value if math.isfinite(value) else _refused(f"number {_shown(text)} is too large")


def _parse_constant(text: str) -> Unusable:
    return _refused(f"{text} is not a JSON number")


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant)


def _cut_deep(text: str, limit: int) -> str:
    """`text` with every object or list that opens deeper than `limit` levels replaced by a
    marker string (bracket counting that skips strings; the parser then checks the rest)."""
    pieces, depth, last, cut_at = [], 0, 0, -1
    for token in _TOKENS.finditer(text):
        char = token[0]
        if char in "[{":
            depth += 1
            if depth == limit + 1 and cut_at < 0:
                cut_at = token.start()
        elif char in "]}":
            depth -= 1
            if depth == limit and cut_at >= 0:
                pieces += [text[last:cut_at], _TOO_DEEP_JSON]
                last, cut_at = token.end(), -1
    if cut_at >= 0:
        pieces += [text[last:cut_at], _TOO_DEEP_JSON]
        last = len(text)
    pieces.append(text[last:])
    return "".join(pieces)


def _decode(text: str) -> Any:
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        message = error.msg.removesuffix(" at")
        if error.pos < len(text) and "\udc80" <= text[error.pos] <= "\udcff":
            message = f"not UTF-8 text (byte {ord(text[error.pos]) - 0xDC00:#04x})"
        raise JSONError(message, error.lineno, error.colno) from None


def parse_json(text: str, *, limit: int = MAX_DEPTH) -> Any:
    """The value of JSON `text` (a byte-order mark is not part of it: `decode` drops it).
    Syntax errors raise `JSONError`; values that cannot be kept, and parts nested deeper than
    the parser can follow (they are cut at `limit` levels), stand as `Unusable` values for
    `find_unusable` to report."""
    cut = False
    try:
        data = _decode(text)
    except RecursionError:
        text, cut = _cut_deep(text, limit), True
        try:
            data = _decode(text)
        except RecursionError:
            raise JSONError("nested too deeply to read", 1, 1) from None
    if cut or _SUSPECT.search(text):
        data = mark_unusable(data, too_deep=_TOO_DEEP if cut else None)
    return data


def parse_json_record(text: str, *, limit: int = MAX_DEPTH) -> tuple[Any, bool]:
    """`parse_json(text)` and whether the value is certainly clean: nothing was cut or marked
    and it cannot nest deeper than `limit` (fewer opening brackets than that), so that a reader
    of many small records need not walk each one (`find_unusable`). False only means "look"."""
    refused = _REFUSED[0]
    data = parse_json(text, limit=limit)
    clean = (
        _REFUSED[0] == refused  # another thread's refusal only makes this look
        and text.count("[") + text.count("{") < limit
        and not _SUSPECT.search(text)
    )
    return data, clean


def read_json(path: str | Path, *, limit: int = MAX_DEPTH) -> Any:
    """The value of a JSON file (see `parse_json`); an `InputError` naming the file and line
    when it is not JSON at all."""
    with reading(path):
        text = decode(read_bytes(path), path)
        try:
            return parse_json(text, limit=limit)
        except JSONError as error:
            where = f"{path}:{error.line}"
            raise InputError(f"{where}: not valid JSON ({error.message} at column {error.column})") from None
