"""YAML text to Python values with PyYAML's safe loader, with the same refusals as JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from vqakit.files._decode import decode, find_bad_byte, read_bytes
from vqakit.files._problems import InputError
from vqakit.files._values import MAX_DEPTH, mark_unusable


def yaml_error_line(text: str, error: yaml.YAMLError) -> int:
    """The 1-based line a YAML error points at (1 when it points nowhere)."""
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    return text[: getattr(error, "position", None) or 0].count("\n") + 1


def parse_yaml(text: str, path: str | Path) -> Any:
    """The value of YAML `text` read from `path`. Syntax errors, bytes that are not UTF-8 and
    nesting the loader cannot follow are `InputError`s naming the file and line; values that
    cannot be kept (numbers beyond 64 bits or not finite, text with NUL characters, anything
    nested deeper than `MAX_DEPTH`) stand as `Unusable` values. Aliases are expanded by sharing,
    never copied."""
    if found := find_bad_byte(text):
        raise InputError(f"{path}:{found[0]}: {found[1]}")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        raise InputError(f"{path}:{yaml_error_line(text, error)}: not valid YAML ({problem})") from None
    except RecursionError:
        raise InputError(f"{path}: not usable YAML: nested deeper than {MAX_DEPTH} levels") from None
    return mark_unusable(data, limit=MAX_DEPTH)


def read_yaml(path: str | Path) -> Any:
    """`parse_yaml` of a file (a byte-order mark is fine)."""
    return parse_yaml(decode(read_bytes(path), path), path)
