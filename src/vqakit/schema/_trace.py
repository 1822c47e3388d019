"""Reading a written reasoning trace: numbered steps, timestamps and object ids.

Traces follow Minerva-Ego's style: numbered steps, times as `MM:SS` or `HH:MM:SS` (optionally
ranges such as `01:05-01:12` or `1:05 to 1:12`) and objects written as `name-<16 hex digits>`,
e.g. `knife-2c3afc468fb10cb2`, where the same id marks the same physical object every time.
A name with spaces must be quoted or parenthesised: `"chopping board-0123456789abcdef"`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

_TIME = r"(?:\d{1,2}:)?\d{1,2}:\d{2}(?:\.\d+)?"
_TIME_RANGE = re.compile(rf"(?<![\d:])({_TIME})(?:\s*(?:-|–|—|to)\s*({_TIME}))?(?![\d:])")
_QUOTED_OBJECT = re.compile(r"[\"'“‘(\[]([^\"'”’)\]]+?)-([0-9a-f]{16})[\"'”’)\]]")
_BARE_OBJECT = re.compile(
    r"(?<![\w-])([A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*)-([0-9a-f]{16})(?![0-9a-zA-Z])"
)
_STEP_START = re.compile(r"^\s*(\d{1,3})[.)]\s+", re.MULTILINE)


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


_BETWEEN = re.compile(
    rf"\b(?:between|from)\s+({_TIME})\s+(?:and|until|till)\s+({_TIME})(?![\d:])", re.IGNORECASE
)


def find_times(text: str) -> list[tuple[float, float]]:
    """Every time or time range in the text, in order of appearance. Ranges: `01:05-01:12`,
    `1:05 to 1:12`, `between 1:05 and 1:12`, `from 1:05 until 1:12`."""
    found: list[tuple[int, tuple[float, float]]] = []
    taken: list[tuple[int, int]] = []
    for match in _BETWEEN.finditer(text):
        found.append((match.start(), (parse_clock(match[1]), parse_clock(match[2]))))
        taken.append(match.span())
    for match in _TIME_RANGE.finditer(text):
        if any(a <= match.start() < b for a, b in taken):
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
    for match in _BARE_OBJECT.finditer(text):
        if not any(a <= match.start() < b for a, b in taken):
            hits.append((match.start(), match[1], match[2]))
    seen: dict[str, ObjectRef] = {}
    for _, name, hex_id in sorted(hits):
        ref = ObjectRef(id=f"{name}-{hex_id}", name=name, hex=hex_id)
        seen.setdefault(ref.id, ref)
    return list(seen.values())


def parse_trace(text: str) -> list[TraceStep]:
    """Split a trace into numbered steps (a trace without numbers is one step)."""
    starts = list(_STEP_START.finditer(text))
    if not starts:
        pieces = [(1, text.strip())] if text.strip() else []
    else:
        pieces = []
        for i, match in enumerate(starts):
            end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
            pieces.append((int(match[1]), text[match.end() : end].strip()))
    return [
        TraceStep(number=number, text=body, times_s=find_times(body), objects=find_objects(body))
        for number, body in pieces
    ]
