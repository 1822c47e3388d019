"""Reading one line of a log: why a line cannot be read, said on one line (`line_problem`), and
the checks parsers of plain JSON records share (`json_object`, `require`)."""

from __future__ import annotations

import json
from typing import Any

from vqakit.files._json import JSONError
from vqakit.files._problems import one_line

NO_UTF8 = "not UTF-8 text"


def line_problem(error: BaseException) -> str:
    """Why a line could not be read, on one line: the fields a model refused (pydantic), the
    JSON error and its column, or the error's own words."""
    if isinstance(error, UnicodeDecodeError):
        return f"{NO_UTF8} (byte {error.start + 1})"
    if isinstance(error, json.JSONDecodeError):
        return f"not JSON ({error.msg} at column {error.colno})"
    if isinstance(error, JSONError):  # vqakit.files.parse_json's
        return f"not JSON ({error.message} at column {error.column})"
    if isinstance(error, RecursionError):
        return "nested too deeply"
    errors = getattr(error, "errors", None)
    if callable(errors):  # pydantic's ValidationError
        try:
            found = list(errors())
        except Exception:
            found = []
        if found and found[0].get("type") == "json_invalid":
            said = (
                str(found[0].get("msg", ""))
                .removeprefix("Invalid JSON: ")
                .replace(" at line 1 column", " at column")
            )
            return one_line(f"not JSON ({said})")
        parts = [
            f"{'.'.join(str(part) for part in item.get('loc', ())) or 'record'}: {item.get('msg', '?')}"
            for item in found[:3]
        ]
        if parts:
            more = f" (+{len(found) - 3} more)" if len(found) > 3 else ""
            return one_line("; ".join(parts) + more)
    return one_line(str(error) or type(error).__name__)


def json_object(line: bytes) -> dict[str, Any]:
    """A line as a JSON object (ValueError when it is not JSON, or JSON but not an object)."""
    record = json.loads(line)
    if not isinstance(record, dict):
        raise ValueError(f"not a JSON object ({type(record).__name__})")
    return record


def require(record: dict[str, Any], types: dict[str, type | tuple[type, ...]]) -> dict[str, Any]:
    """`record` when each of `types`' keys is present with a value of that type; ValueError
    naming the first that is not (a bool is no int here)."""
    for key, kind in types.items():
        if key not in record:
            raise ValueError(f"{key}: missing")
        value = record[key]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            raise ValueError(f"{key}: {json.dumps(value)} is not {_type_name(kind)}")
        if not isinstance(value, kind):
            raise ValueError(
                f"{key}: {one_line(json.dumps(value, default=str))[:60]} is not {_type_name(kind)}"
            )
    return record


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    names = {str: "a string", int: "an integer", float: "a number", dict: "an object", list: "a list",
             bool: "a boolean"}  # fmt: skip
    named = list(dict.fromkeys(names.get(item, item.__name__) for item in kinds if item is not type(None)))
    if int in kinds and float in kinds:
        named = [name for name in named if name != "an integer"]
    return " or ".join(named) + (" or null" if type(None) in kinds else "")
