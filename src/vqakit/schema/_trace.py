"""Reading a written reasoning trace: numbered steps, timestamps and object ids.

Formats read (Minerva-Ego's numbered steps, and MINERVA's single prose paragraph):

- Steps: a number with `.` or `)` at the start of a line (`1. ...`, `2) ...`), or inside one
  paragraph when it continues the count after a sentence end (`... at 00:59. 2. At 03:06 ...`).
  A trace without step numbers is one step.
- Times: `MM:SS`, `H:MM:SS` / `HH:MM:SS`, each with an optional fraction (`00:07.5`) and
  optionally in brackets (`[01:58]`, `(00:05)`); minutes and seconds after the first field are
  00-59. A time directly followed by `:` still counts (`1. 00:05-00:10: I open ...`).
- Ranges: `01:05-01:12`, `01:05 - 01:12`, with an en or em dash, `~`, `->`, or the words
  `to`, `until`, `till`, `through` / `thru` between the two times, and the prose forms
  `between 1:05 and 1:12` and `from 1:05 to/until/till/and 1:12`. Two times joined by a plain
  `and` without `between` / `from` (`at 5:24 and 5:48`) are two moments, not a range.
- Objects: `name-<16 lower-case hex digits>`, e.g. `knife-2c3afc468fb10cb2`, where the same id
  marks the same physical object every time; numbered names such as `knife2-067f49caca9d1aff`
  are read the same way (the name is `knife2`). A name with spaces must be quoted or
  bracketed: `"chopping board-0123456789abcdef"`, `(left half of apple-aaaaaaaaaaaaaaaa)`;
  such a name is at most 80 characters, which also keeps the search linear in the text length.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel

_CLOCK = r"(?:\d{1,2}:)?\d{1,2}:[0-5]\d(?:\.\d+)?"
_TIME = rf"(?:[\[(]\s*)?({_CLOCK})(?:\s*[\])])?"
# not part of a longer number or clock: no digit or ':' before, no digit or ':<digit>' after
_ALONE_BEFORE = r"(?<![\d:])"
_ALONE_AFTER = r"(?!\d|:\d|\.\d)"
_JOIN = r"\s*(?:-+>?|[–—~]|to\b|until\b|till\b|through\b|thru\b)\s*"
_TIME_RANGE = re.compile(rf"{_ALONE_BEFORE}{_TIME}{_ALONE_AFTER}(?:{_JOIN}{_TIME}{_ALONE_AFTER})?")
_BETWEEN = re.compile(
    rf"\b(?:between|from)\s+{_TIME}{_ALONE_AFTER}\s+(?:and|to|until|till)\s+{_TIME}{_ALONE_AFTER}",
    re.IGNORECASE,
)
# an opening quote that is not an apostrophe inside a word (`user's (knife-...)`)
_OPEN = r"(?:(?<![A-Za-z])['‘’]|[\"“(\[])"
_QUOTED_OBJECT = re.compile(rf"{_OPEN}([A-Za-z][^\"'“”‘’()\[\]\n]{{0,79}}?)-([0-9a-f]{{16}})[\"'”’)\]]")
_BARE_OBJECT = re.compile(
    r"(?<![\w-])([A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*)-([0-9a-f]{16})(?![0-9a-zA-Z])"
)
_LINE_STEP = re.compile(r"^[ \t]*(\d{1,3})[.)]\s+", re.MULTILINE)
_INLINE_STEP = re.compile(r"(?<=[.!?;)\]\"'”’])[ \t]+(\d{1,3})[.)][ \t]+")


class ObjectRef(BaseModel):
    id: str  # "knife-2c3afc468fb10cb2"
    name: str  # "knife"
    hex: str  # "2c3afc468fb10cb2"


class TraceStep(BaseModel):
    number: int
    text: str
    times_s: list[tuple[float, float]]  # a single time is (t, t)
    objects: list[ObjectRef]


def parse_clock(text: str) -> float:
    """`SS`, `MM:SS`, `HH:MM:SS`, with optional fraction, to seconds."""
    seconds = 0.0
    for part in text.strip().split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def _inside(spans: list[tuple[int, int]]) -> Callable[[int], bool]:
    """Whether a position lies in one of `spans` (sorted, disjoint), for positions asked in
    increasing order: one pass over the spans in all, so the check stays linear."""
    index = 0

    def check(position: int) -> bool:
        nonlocal index
        while index < len(spans) and spans[index][1] <= position:
            index += 1
        return index < len(spans) and spans[index][0] <= position

    return check


def find_times(text: str) -> list[tuple[float, float]]:
    """Every time or time range in the text, in order of appearance (the forms are listed in
    the module docstring); a single time is `(t, t)`."""
    found: list[tuple[int, tuple[float, float]]] = []
    taken: list[tuple[int, int]] = []
    for match in _BETWEEN.finditer(text):
        found.append((match.start(), (parse_clock(match[1]), parse_clock(match[2]))))
        taken.append(match.span())
    inside = _inside(taken)
    for match in _TIME_RANGE.finditer(text):
        if inside(match.start()):
            continue
        start = parse_clock(match[1])
        end = parse_clock(match[2]) if match[2] else start
        found.append((match.start(), (start, end)))
    return [times for _, times in sorted(found)]


def find_objects(text: str) -> list[ObjectRef]:
    """Object references in order of first appearance, one per id."""
    hits: list[tuple[int, str, str]] = []
    taken: list[tuple[int, int]] = []
    for match in _QUOTED_OBJECT.finditer(text):
        hits.append((match.start(), match[1].strip(), match[2]))
        taken.append(match.span())
    inside = _inside(taken)
    for match in _BARE_OBJECT.finditer(text):
        if not inside(match.start()):
            hits.append((match.start(), match[1], match[2]))
    seen: dict[str, ObjectRef] = {}
    for _, name, hex_id in sorted(hits):
        ref = ObjectRef(id=f"{name}-{hex_id}", name=name, hex=hex_id)
        seen.setdefault(ref.id, ref)
    return list(seen.values())


def _step_starts(text: str) -> list[tuple[int, int, int]]:
    """(number, start of the marker, end of the marker) of each step: every line-start number,
    and an in-paragraph number after a sentence end when it is the previous step's number + 1."""
    marks = [(m.start(), m.end(), int(m[1]), True) for m in _LINE_STEP.finditer(text)]
    marks += [(m.start(), m.end(), int(m[1]), False) for m in _INLINE_STEP.finditer(text)]
    starts: list[tuple[int, int, int]] = []
    for start, end, number, at_line_start in sorted(marks):
        if starts and start < starts[-1][2]:
            continue  # the same marker found both ways
        if at_line_start or (starts and number == starts[-1][0] + 1):
            starts.append((number, start, end))
    return starts


def parse_trace(text: str) -> list[TraceStep]:
    """Split a trace into numbered steps (a trace without numbers is one step)."""
    starts = _step_starts(text)
    if not starts:
        pieces = [(1, text.strip())] if text.strip() else []
    else:
        pieces = []
        for i, (number, _, end) in enumerate(starts):
            stop = starts[i + 1][1] if i + 1 < len(starts) else len(text)
            pieces.append((number, text[end:stop].strip()))
    return [
        TraceStep(number=number, text=body, times_s=find_times(body), objects=find_objects(body))
        for number, body in pieces
    ]
