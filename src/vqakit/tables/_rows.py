"""One table row to the fields of a sample, by a mapping. Each problem is a `RowProblem` naming
the column at fault, so the importer can say `FILE:ROW:COLUMN: problem` and leave the row out."""

from __future__ import annotations

import ast
import math
import re
from dataclasses import dataclass
from typing import Any

from vqakit.files import JSONError, find_unusable, parse_json
from vqakit.schema import MAX_CHOICES
from vqakit.tables._mapping import TableMapping, render

_PREFIX = re.compile(r"^\(?([A-Z])[.):]\s*")
_LETTER = re.compile(r"^\(?([A-Za-z])\)?[.:]?$")


class RowProblem(ValueError):
    """What is wrong with one cell of a row."""

    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column


@dataclass(frozen=True)
class RowFields:
    id: str
    question: str
    choices: list[str] | None
    answer: int | str | None
    video: str  # the path template rendered: relative to the videos folder
    start_s: float | None
    end_s: float | None
    subtitles: str | None
    groups: dict[str, str]
    metadata: dict[str, Any]
    facts: list[str]
    reasoning: str | None
    extra: dict[str, Any]  # objects, gold_clips, gold_passages, as the sample holds them


def _blank(value: Any) -> bool:
    return (
        value is None
        or (isinstance(value, float) and math.isnan(value))
        or (isinstance(value, str) and not value.strip())
    )


def shown(value: Any, limit: int = 60) -> str:
    """A cell as a problem line quotes it: its repr, cut at `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _python_list(text: str) -> Any:
    """A Python literal (`['a', 'b']`, as pandas writes a list cell), or None."""
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None


def _parsed_list(column: str, text: str) -> list[Any] | None:
    """The list a text cell holds (JSON, else a Python literal), checked like any value read."""
    try:
        parsed = parse_json(text)
    except JSONError:
        parsed = _python_list(text)
    if not isinstance(parsed, list):
        return None
    if found := find_unusable(parsed):
        raise RowProblem(column, f"item {found[0]}: {found[1]}")
    return parsed


def _listed(column: str, value: Any, what: str = "options") -> list[Any]:
    """A list cell: a list, or text holding a JSON (or Python) list, as CSV files write them."""
    if isinstance(value, list | tuple):
        return list(value)
    if isinstance(value, str) and value.strip().startswith("["):
        parsed = _parsed_list(column, value)
        if parsed is not None:
            return parsed
    raise RowProblem(column, f"expected a list of {what}, got {type(value).__name__} {shown(str(value))}")


def _unprefixed(options: list[str]) -> list[str]:
    """Options written `A. text`, `(B) text`... lose their labels when all are labelled A, B, C
    in order (Video-MME writes them so); otherwise they stay as written."""
    labels = [_PREFIX.match(option) for option in options]
    if all(labels) and [m.group(1) for m in labels if m] == [chr(65 + i) for i in range(len(options))]:
        return [option[m.end() :].strip() for option, m in zip(options, labels, strict=True) if m]
    return options


def _options(mapping: TableMapping, row: dict[str, Any]) -> list[str] | None:
    if mapping.options is None:
        return None
    if isinstance(mapping.options, list):
        column = ",".join(mapping.options)
        values = [row.get(name) for name in mapping.options]
    else:
        column = mapping.options
        values = _listed(column, row.get(column))
    options = [str(value).strip() for value in values if not _blank(value)]
    if not options:
        return None  # an open-ended question
    options = _unprefixed(options)
    if len(options) < 2:
        raise RowProblem(column, f"{len(options)} option(s); a question needs at least 2")
    if len(options) > MAX_CHOICES:
        raise RowProblem(column, f"{len(options)} options; at most {MAX_CHOICES} (A to Z)")
    if len(set(options)) != len(options):
        raise RowProblem(column, "two options have the same text")
    return options


def _integer(column: str, value: Any) -> int:
    """An index cell: a whole number, read alike in every format: text that spells a number as
    JSON does (`1`, `1.0`, `1e0`, as a CSV holds it) is that number, so a CSV's `1.0` is the
    index a JSON `1.0` is."""
    if isinstance(value, bool):
        raise RowProblem(column, f"{value!r} is not an index")
    number = value
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"-?\d{1,18}", text):
            return int(text)
        if _NUMBER.fullmatch(text):
            number = float(text)
    if isinstance(number, int):
        return number
    if isinstance(number, float) and number.is_integer():
        return int(number)
    raise RowProblem(column, f"{shown(value)} is not an index")


def _answer(mapping: TableMapping, row: dict[str, Any], choices: list[str] | None) -> int | str | None:
    spec = mapping.answer
    if spec is None:
        return None
    column = spec.open_column if choices is None and spec.open_column else spec.column
    value = row.get(column)
    if _blank(value):
        if spec.missing == "hidden":
            return None
        raise RowProblem(column, "no answer (set answer.missing: hidden for a test split)")
    if choices is None:
        return str(value).strip()
    if spec.kind == "text":
        text = str(value).strip()
        matches = [i for i, choice in enumerate(choices) if choice == text]
        if not matches:
            folded = [i for i, choice in enumerate(choices) if choice.casefold() == text.casefold()]
            matches = folded if len(folded) == 1 else []
        if not matches:
            raise RowProblem(spec.column, f"{shown(text)} is not one of the options")
        return matches[0]
    if spec.kind == "letter":
        match = _LETTER.match(str(value).strip())
        if match is None:
            raise RowProblem(spec.column, f"{shown(value)} is not an option letter")
        index = ord(match.group(1).upper()) - 65
    else:
        index = _integer(spec.column, value) - (1 if spec.kind == "index1" else 0)
    if not 0 <= index < len(choices):
        raise RowProblem(spec.column, f"{value} is out of range for {len(choices)} options ({spec.kind})")
    return index


def time_column(key: str, template: str | None, row: dict[str, Any]) -> str:
    """What a problem line names for the `start` or `end` time: its column, or the key itself
    when the mapping gives a template."""
    return template if template is not None and template in row else key


def _seconds(key: str, template: str | None, row: dict[str, Any]) -> float | None:
    """The `start` or `end` of a row: a column, or a template over columns, in seconds. A value
    that is not a number, overflows a float, is not finite or is negative is a problem of the
    row, named by its column (by `start`/`end` for a template)."""
    if template is None:
        return None
    column = time_column(key, template, row)
    try:
        value = row[template] if template in row else render(template, row)
    except KeyError as error:
        raise RowProblem(key, f"no column {error.args[0]!r} for the {key} time") from None
    if _blank(value):
        return None
    if isinstance(value, bool):
        raise RowProblem(column, f"{value!r} is not a time in seconds")
    try:
        seconds = float(value.strip() if isinstance(value, str) else value)
    except OverflowError:
        raise RowProblem(column, f"{shown(value)} is too large for a time in seconds") from None
    except (TypeError, ValueError):
        raise RowProblem(column, f"{shown(value)} is not a time in seconds") from None
    if not math.isfinite(seconds) or seconds < 0:
        raise RowProblem(column, f"{shown(value)} is not a time in seconds (0 or more)")
    return seconds


def _json_value(value: Any) -> Any:
    """A cell as JSON can hold it (NaN and other non-JSON values become text or null)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_value(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?")


def _typed(value: Any) -> Any:
    """A CSV cell as the number it spells (`120` -> 120, `2.5` -> 2.5); other text as it is, so
    that a CSV gives the same metadata as a typed format (`007` and `1.50` stay text, and so do
    whole numbers beyond 64 bits)."""
    if not isinstance(value, str) or len(value) > 40 or not _NUMBER.fullmatch(value):
        return value
    if value.lstrip("-").isdigit():
        number = int(value)
        return number if -(2**63) <= number < 2**63 else value
    number = float(value)
    return number if math.isfinite(number) and repr(number) == value else value


def row_fields(mapping: TableMapping, row: dict[str, Any], *, text_cells: bool = False) -> RowFields:
    """The sample fields of one row; RowProblem names the first cell at fault. `text_cells`:
    the table holds only text (CSV, TSV), so metadata cells that spell numbers become numbers."""
    try:
        sample_id = render(mapping.id, row).strip()
    except KeyError as error:
        raise RowProblem(str(error.args[0]), "empty or missing, and the id needs it") from None
    if not sample_id:
        raise RowProblem("id", f"the id template {mapping.id!r} gives an empty id")
    question = row.get(mapping.question)
    if _blank(question):
        raise RowProblem(mapping.question, "no question")
    choices = _options(mapping, row)
    answer = _answer(mapping, row, choices)
    try:
        video = render(mapping.video.path, row).strip()
    except KeyError as error:
        raise RowProblem(str(error.args[0]), "missing, and the video path needs it") from None
    if not video:
        raise RowProblem("video", "the video path is empty")
    start, end = _seconds("start", mapping.start, row), _seconds("end", mapping.end, row)
    if start is not None and end is not None and start >= end:
        column = time_column("start", mapping.start, row)
        raise RowProblem(column, f"the window starts ({start:g} s) at or after its end ({end:g} s)")
    subtitles = None
    if mapping.subtitles:
        try:
            subtitles = render(mapping.subtitles, row).strip() or None
        except KeyError:
            subtitles = None
    key = mapping.rename.get
    groups = {key(name, name): str(row[name]).strip() for name in mapping.groups if not _blank(row.get(name))}
    convert = _typed if text_cells else _json_value
    metadata = {
        key(name, name): convert(row[name])
        for name in mapping.metadata
        if name in row and not _blank(row[name])
    }
    facts = []
    if mapping.facts and not _blank(row.get(mapping.facts)):
        facts = [
            str(fact) for fact in _listed(mapping.facts, row[mapping.facts], "facts") if not _blank(fact)
        ]
    reasoning = row.get(mapping.reasoning) if mapping.reasoning else None
    extra = _extra(mapping, row)
    return RowFields(
        sample_id,
        str(question).strip(),
        choices,
        answer,
        video,
        start,
        end,
        subtitles,
        groups,
        metadata,
        facts,
        None if _blank(reasoning) else str(reasoning),
        extra,
    )


def _extra(mapping: TableMapping, row: dict[str, Any]) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    for key in ("gold_clips", "gold_passages"):
        column = getattr(mapping, key)
        if column and not _blank(row.get(column)):
            extra[key] = [str(item) for item in _listed(column, row[column], "ids") if not _blank(item)]
    if mapping.objects and not _blank(row.get(mapping.objects)):
        value = row[mapping.objects]
        if isinstance(value, str):
            try:
                value = parse_json(value)
            except JSONError:
                raise RowProblem(mapping.objects, "not JSON object tracks") from None
            if found := find_unusable(value):
                raise RowProblem(mapping.objects, f"{found[0]}: {found[1]}")
        if not isinstance(value, list):
            raise RowProblem(mapping.objects, "object tracks must be a list")
        extra["objects"] = _json_value(value)
    return {key: value for key, value in extra.items() if value}
