"""SRT and WebVTT subtitles as timed cues, read with pysubs2.

pysubs2 splits cues and cleans their text (SRT numbering however broken, `<i>`/`<font>` and
`{\\an8}` styling tags, `\\N` breaks, blank lines inside a cue). Around it this module keeps what
vqakit needs from a subtitle file:

- the text is decoded in a written order: a byte order mark (UTF-8, UTF-16, UTF-32), then
  strict UTF-8, then cp1252 (Windows Western, the usual legacy encoding of subtitle sites),
  then latin-1 (which reads any byte); `read_subtitles(path, encoding=...)` forces one;
- every cue keeps the line of its timing in the file, and a timing line that cannot be read, or
  a cue that ends before it starts, is an error naming the file and line (pysubs2 would skip or
  keep them silently);
- timings are read leniently (hours of any number of digits or none, `,` or `.` before 1 to 3
  digits of milliseconds, VTT cue settings after the end time) and handed to pysubs2 in one
  canonical form;
- WebVTT header, NOTE, STYLE and REGION blocks and cue identifiers are blanked before pysubs2
  reads the text (it would otherwise add them to the previous cue), and VTT character
  references (`&amp;`) are decoded.
"""

from __future__ import annotations

import codecs
import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from vqakit.video._errors import VideoError

_STAMP = r"(?:(\d+):)?(\d{1,2}):(\d{2})[.,](\d{1,3})"
_TIMING = re.compile(rf"^\s*{_STAMP}\s*-->\s*{_STAMP}(?:\s+.*)?$")
_VTT_BLOCK = re.compile(r"^(NOTE|STYLE|REGION)\b")
_VTT_TIME_TAG = re.compile(r"<\d[^>]*>")
_NUMBER_LINE = re.compile(r"^\s*\d+\s*$")
_GUARD = "\u2060"  # word joiner: keeps pysubs2 from reading a text line as a timing or a cue number
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


@dataclass(frozen=True)
class Cue:
    start_s: float
    end_s: float
    text: str
    line: int  # line of the timing in the source file (1-based)

    def overlaps(self, start_s: float, end_s: float) -> bool:
        return self.start_s < end_s and self.end_s > start_s


def _millis(hours: str | None, minutes: str, seconds: str, millis: str) -> int:
    return ((int(hours or 0) * 60 + int(minutes)) * 60 + int(seconds)) * 1000 + int(millis.ljust(3, "0"))


def _canonical(ms: int) -> str:
    hours, rest = divmod(ms, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    return f"{hours:02d}:{minutes:02d}:{rest // 1000:02d},{rest % 1000:03d}"


def _timing_rows(lines: list[str], source: str) -> dict[int, tuple[int, int]]:
    """{row: (start ms, end ms)} of every timing line; unreadable ones are errors."""
    rows: dict[int, tuple[int, int]] = {}
    for row, line in enumerate(lines):
        if "-->" not in line:
            continue
        match = _TIMING.match(line)
        if not match:
            raise VideoError(source, f"line {row + 1}: cannot read the cue timing {line.strip()!r}")
        start, end = _millis(*match.groups()[:4]), _millis(*match.groups()[4:])
        if end < start:
            raise VideoError(
                source, f"line {row + 1}: cue ends ({end / 1000:.3f}s) before it starts ({start / 1000:.3f}s)"
            )
        if end >= 100 * 3_600_000:
            raise VideoError(source, f"line {row + 1}: cue times of 100 hours or more are not supported")
        rows[row] = (start, end)
    return rows


def _blank_vtt_blocks(lines: list[str], timings: dict[int, tuple[int, int]]) -> None:
    """Blank the WEBVTT header and NOTE / STYLE / REGION blocks (never a block with a timing)."""
    row, header = 0, True
    while row < len(lines):
        starts_block = bool(lines[row].strip()) and (row == 0 or not lines[row - 1].strip())
        if starts_block and (header or _VTT_BLOCK.match(lines[row])) and row not in timings:
            while row < len(lines) and lines[row].strip() and row not in timings:
                lines[row] = ""
                row += 1
        header = header and not starts_block
        row += 1


def _prepare(lines: list[str], timings: dict[int, tuple[int, int]], is_vtt: bool) -> list[str]:
    """The text pysubs2 reads: one line per source line, timings canonical, identifiers blank."""
    out = list(lines)
    if is_vtt:
        _blank_vtt_blocks(out, timings)
    rows = sorted(timings)
    for row in rows:
        before = row - 1
        if before < 0 or before in timings or not out[before].strip():
            continue
        if _NUMBER_LINE.match(out[before]) or before == 0 or not out[before - 1].strip():
            out[before] = ""  # a cue identifier (a number in SRT, any text in VTT)
    for index, row in enumerate(rows):
        stop = rows[index + 1] if index + 1 < len(rows) else len(out)
        texts = [r for r in range(row + 1, stop) if out[r].strip()]
        if len(texts) > 1 and _NUMBER_LINE.match(out[texts[-1]]):
            out[texts[-1]] += _GUARD  # a last line of digits is text, not the next cue's number
        start, end = timings[row]
        out[row] = f"{_canonical(start)} --> {_canonical(end)}"
    from pysubs2.time import TIMESTAMP  # imported when subtitles are read (it takes a while)

    for row, line in enumerate(out):
        if row not in timings and TIMESTAMP.search(line):
            out[row] = line.replace(":", ":" + _GUARD)  # text that reads as a time stays text
    return out


def _clean(text: str, is_vtt: bool) -> str:
    text = text.replace(_GUARD, "")
    if is_vtt:
        text = html.unescape(_VTT_TIME_TAG.sub("", text))
    return "\n".join(part.strip() for part in text.split("\n") if part.strip())


def parse_subtitles(text: str, source: str = "<subtitles>") -> list[Cue]:
    """Cues from SRT or WebVTT text, in file order."""
    lines = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    first = next((line for line in lines if line.strip()), "")
    is_vtt = first.lstrip().startswith("WEBVTT")
    timings = _timing_rows(lines, source)
    if not timings:
        content = lines[1:] if is_vtt else lines
        if any(line.strip() for line in content):
            raise VideoError(source, "no subtitle cues found (expected SRT or WebVTT timing lines)")
        return []
    prepared = _prepare(lines, timings, is_vtt)
    import pysubs2

    events = pysubs2.SSAFile.from_string("\n".join(prepared), format_="srt").events
    rows = sorted(timings)
    if len(events) != len(rows):  # cannot happen: every timing line is one event
        raise VideoError(source, f"read {len(events)} cues from {len(rows)} timing lines")
    return [
        Cue(event.start / 1000, event.end / 1000, _clean(event.plaintext, is_vtt), row + 1)
        for event, row in zip(events, rows, strict=True)
    ]


def decode_subtitles(raw: bytes, encoding: str | None = None) -> tuple[str, str]:
    """(text, encoding used): `encoding` when given, else by the order in the module docstring."""
    if encoding is not None:
        return raw.decode(encoding), encoding
    for bom, codec in _BOMS:
        if raw.startswith(bom):
            return raw.decode(codec), codec
    for codec in ("utf-8", "cp1252"):
        try:
            return raw.decode(codec), codec
        except UnicodeDecodeError:
            continue
    return raw.decode("latin-1"), "latin-1"


def read_subtitles(path: str | Path, encoding: str | None = None) -> list[Cue]:
    """Parse an `.srt` or `.vtt` file; errors name the file and line."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise VideoError(path, "subtitle file not found") from None
    except OSError as error:
        raise VideoError(path, f"cannot read the subtitle file ({error.strerror})") from None
    try:
        text, _ = decode_subtitles(raw, encoding)
    except (LookupError, UnicodeDecodeError) as error:
        raise VideoError(path, f"cannot decode as {encoding}: {error}") from None
    return parse_subtitles(text, str(path))


def cues_between(cues: Iterable[Cue], start_s: float, end_s: float) -> list[Cue]:
    """Cues that overlap the window [start_s, end_s)."""
    return [cue for cue in cues if cue.overlaps(start_s, end_s)]


def cut_cues(cues: Iterable[Cue], start_s: float, end_s: float) -> list[Cue]:
    """The cues overlapping [start_s, end_s), clipped to it and on its clock (0 at start_s), so
    that a model shown the window reads times that match what it sees."""
    return [
        replace(cue, start_s=max(cue.start_s, start_s) - start_s, end_s=min(cue.end_s, end_s) - start_s)
        for cue in cues_between(cues, start_s, end_s)
    ]
