"""SRT and WebVTT subtitles as timed cues.

Parsing is lenient where real files vary (BOM, CRLF, hours of one digit or none, `,` or `.`
before milliseconds, VTT cue settings, styling tags) and strict where a mistake would shift
meaning: a timing line that cannot be read, or a cue that ends before it starts, is an error
naming the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from vqakit.video._errors import VideoError

_STAMP = r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_STAMP}\s*-->\s*{_STAMP}(?:\s+.*)?$")
_TAG = re.compile(r"<[^>]*>")


@dataclass(frozen=True)
class Cue:
    start_s: float
    end_s: float
    text: str
    line: int  # line of the timing in the source file (1-based)

    def overlaps(self, start_s: float, end_s: float) -> bool:
        return self.start_s < end_s and self.end_s > start_s


def _seconds(hours: str | None, minutes: str, seconds: str, millis: str) -> float:
    return int(hours or 0) * 3600 + int(minutes) * 60 + int(seconds) + int(millis.ljust(3, "0")) / 1000


def parse_subtitles(text: str, source: str = "<subtitles>") -> list[Cue]:
    """Cues from SRT or WebVTT text, in file order."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    is_vtt = bool(lines) and lines[0].startswith("WEBVTT")
    cues: list[Cue] = []
    i = 1 if is_vtt else 0
    while i < len(lines):
        line = lines[i]
        if is_vtt and re.match(r"^(NOTE|STYLE|REGION)\b", line):
            while i < len(lines) and lines[i].strip():
                i += 1
            continue
        if "-->" not in line:  # blank line or cue identifier
            i += 1
            continue
        match = _TIMING.match(line)
        if not match:
            raise VideoError(source, f"line {i + 1}: cannot read the cue timing {line.strip()!r}")
        start = _seconds(*match.groups()[:4])
        end = _seconds(*match.groups()[4:])
        if end < start:
            raise VideoError(source, f"line {i + 1}: cue ends ({end:.3f}s) before it starts ({start:.3f}s)")
        body: list[str] = []
        timing_line = i + 1
        i += 1
        while i < len(lines) and lines[i].strip():
            body.append(_TAG.sub("", lines[i]).strip())
            i += 1
        cues.append(Cue(start, end, "\n".join(part for part in body if part), timing_line))
    if not cues and any(line.strip() for line in lines[1 if is_vtt else 0 :]):
        raise VideoError(source, "no subtitle cues found (expected SRT or WebVTT timing lines)")
    return cues


def read_subtitles(path: str | Path) -> list[Cue]:
    """Parse an `.srt` or `.vtt` file; errors name the file and line."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise VideoError(path, "subtitle file not found") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    return parse_subtitles(text, str(path))


def cues_between(cues: Iterable[Cue], start_s: float, end_s: float) -> list[Cue]:
    """Cues that overlap the window [start_s, end_s)."""
    return [cue for cue in cues if cue.overlaps(start_s, end_s)]
