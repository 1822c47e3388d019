"""Values a reader refuses, and finding them in a record.

A reader never fails a whole file for one value: a number beyond 64 bits, a float that is not
finite, text with a NUL character or an unpaired surrogate (or bytes that were not UTF-8), a
key holding any of those, nesting deeper than `MAX_DEPTH` levels, each stand in the data as an
`Unusable` value. `find_unusable(record)` then names the first one, so the record holding it is
skipped and listed while the others are read.
"""

from __future__ import annotations

import math
from typing import Any

MAX_DEPTH = 100
"""Deepest nesting of objects and lists a record may have."""

INT_RANGE = (-(1 << 63), 1 << 63)
"""Whole numbers are kept when they fit in 64 bits (what every consumer downstream can store)."""


class UnusableValueError(ValueError):
    """Raised when an `Unusable` value is used as text or as a number."""


class Unusable:
    """Stands where the reader met a value it cannot keep; `reason` says why. Using it as text
    or a number raises `UnusableValueError` (a ValueError), so code that forgot to look fails on
    the record, not later with a wrong value."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def __repr__(self) -> str:
        return f"<unusable: {self.reason}>"

    def _refuse(self, *args: Any) -> Any:
        raise UnusableValueError(self.reason)

    __str__ = __format__ = __float__ = __int__ = __index__ = __bool__ = _refuse  # type: ignore[assignment]


def text_problem(text: str) -> str | None:
    """Why `text` cannot be kept (a NUL character, an unpaired surrogate, bytes that were not
    UTF-8), or None."""
    if "\x00" in text:
        return "holds a NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        char = text[error.start]
        if "\udc80" <= char <= "\udcff":
            return f"not UTF-8 text (byte {ord(char) - 0xDC00:#04x})"
        return f"holds an unpaired surrogate ({char!r}), which is not Unicode text"
    return None


def number_problem(value: Any) -> str | None:
    """Why a number cannot be kept: a whole number beyond 64 bits, a float that is not finite."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and not INT_RANGE[0] <= value < INT_RANGE[1]:
        return f"whole number of {value.bit_length()} bits does not fit in 64 bits"
    if isinstance(value, float) and not math.isfinite(value):
        return f"number {value} is not finite"
    return None


def _mark(value: Any) -> Any:
    """`value`, or an `Unusable` in its place."""
    if isinstance(value, str):
        problem = text_problem(value)
    elif isinstance(value, int | float):
        problem = number_problem(value)
    else:
        return value
    return Unusable(problem) if problem else value


def _safe_key(key: Any) -> Any:
    return ascii(key)[1:-1] if isinstance(key, str) else key


def mark_unusable(data: Any, *, limit: int | None = None, too_deep: str | None = None) -> Any:
    """`data` with each value that cannot be kept replaced by an `Unusable` (in place; the new
    root is returned). A key that cannot be kept is written with escapes and its value becomes
    an `Unusable` saying so. `too_deep`: a text that stands for a cut-off part (the JSON
    reader's marker). `limit`: containers deeper than this become `Unusable`. Containers shared
    or looping (YAML aliases) are visited once."""
    root: list[Any] = [data]
    stack: list[tuple[Any, int]] = [(root, 0)]
    seen: set[int] = set()
    while stack:
        container, depth = stack.pop()
        if id(container) in seen:
            continue
        seen.add(id(container))
        if isinstance(container, dict):
            for key in list(container):
                if isinstance(key, str) and (problem := text_problem(key)):
                    value = container.pop(key)
                    container[_safe_key(key)] = Unusable(f"a key {problem}")
                    del value
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for place, value in list(items):
            if too_deep is not None and value == too_deep:
                container[place] = Unusable(f"nested deeper than {MAX_DEPTH} levels")
            elif isinstance(value, dict | list):
                if limit is not None and depth >= limit:
                    container[place] = Unusable(f"nested deeper than {limit} levels")
                else:
                    stack.append((value, depth + 1))
            else:
                marked = _mark(value)
                if marked is not value:
                    container[place] = marked
    return root[0]


def find_unusable(record: Any, *, limit: int = MAX_DEPTH) -> tuple[str, str] | None:
    """(field, problem) of the first value of `record`, in the order written, that cannot be
    kept: an `Unusable`, text or a number a reader would have refused, a key of that kind, or
    nesting deeper than `limit` levels below the record. The field is a dotted path ("-" for the
    record itself)."""
    # (value, path of its container, its key): a value's path is only built when it is a
    # container (its children need it) or when it is the one reported
    stack: list[tuple[Any, tuple[str, ...], str | None]] = [(record, (), None)]
    seen: set[int] = set()
    while stack:
        value, parent, key = stack.pop()
        if isinstance(value, Unusable):
            return _field(parent, key), value.reason
        if isinstance(value, str | int | float):
            if isinstance(marked := _mark(value), Unusable):
                return _field(parent, key), marked.reason
            continue
        if not isinstance(value, dict | list) or id(value) in seen:
            continue
        seen.add(id(value))
        where = parent if key is None else (*parent, key)
        if len(where) >= limit:
            return ".".join(where[:3]) or "-", f"nested deeper than {limit} levels"
        items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        for child_key, item in reversed(items):
            if isinstance(child_key, str) and (problem := text_problem(child_key)):
                stack.append((Unusable(f"a key {problem}"), where, None))
            else:
                stack.append((item, where, str(child_key)))
    return None


def _field(parent: tuple[str, ...], key: str | None) -> str:
    where = parent if key is None else (*parent, key)
    return ".".join(where if len(where) <= 8 else where[:3]) or "-"
