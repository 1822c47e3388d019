"""The table form, for people's own step annotations: one row per step, as CSV (with a header
row) or JSONL (one object per line; a JSON array of such objects is read too).

Columns (extra columns are kept in the step's `extra`):

| column | required | meaning |
|---|---|---|
| `video_id` | yes | the video the step belongs to (rows of a video need not be adjacent) |
| `theme` | yes | what the video is about; give it on at least one row of the video |
| `start`, `end` | yes | seconds of the video (`12.5`) or clock time (`1:02.5`, `1:02:03`) |
| `text` | yes | what happens in the step |
| `level` | no | 0 for a step (the default), 1 for a substep, 2 below that |
| `category` | no | a step category; trimming counts distinct categories (else the text) |
| `parent` | no | the `id` of the row this step belongs to (its level is then the parent's + 1) |
| `id` | no | a name for the row, for `parent` to refer to |
| `duration` | no | of the whole video, seconds; on any row of the video |
| `perspective` | no | `third` (default) or `first`, per video |

A row with `level` > 0 and no `parent` goes under the latest-starting step one level up that
contains its start. A bad row is skipped and reported as `FILE:LINE`; a file without the
required columns is an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vqakit.builders import InputError
from vqakit.files import json_records, parse_table, sniff_format
from vqakit.systems.instructionbench.importers._common import Loaded, Log, by_time, seconds, span
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

REQUIRED = ("video_id", "theme", "start", "end", "text")
KNOWN = {*REQUIRED, "level", "category", "parent", "id", "duration", "perspective"}


@dataclass
class _Row:
    line: int
    step: Step
    given_level: int | None
    row_id: str | None
    parent: str | None
    up: _Row | None = None  # the row this one nests under
    kids: list[_Row] = field(default_factory=list)


def table_rows(loaded: Loaded) -> list[tuple[int, Any]]:
    """(line or item number, row) pairs of a CSV, TSV, JSONL or JSON-array table; a row the
    reader refused stands as the ValueError saying why."""
    if loaded.is_json and isinstance(loaded.data, dict) and not looks_like_table(loaded.data):
        return [(1, loaded.data)]
    if loaded.is_json and isinstance(loaded.data, list | dict):
        table = json_records(loaded.path, loaded.data)
    elif loaded.is_json:
        return [(1, loaded.data)]
    else:
        form = "jsonl" if loaded.text.lstrip().startswith("{") else sniff_format(loaded.text, loaded.path)
        table = parse_table(loaded.text, loaded.path, "csv" if form == "json" else form)
        lacking = [name for name in REQUIRED if name not in table.columns]
        if form in ("csv", "tsv") and lacking:
            raise InputError(
                f"{loaded.path}:1: the header lacks column(s) {', '.join(lacking)} "
                f"(has: {', '.join(table.columns)})"
            )
    return [
        (
            record.line or record.number,
            record.data
            if record.problem is None
            else ValueError(f"{record.problem.field}: {record.problem.message}"),
        )
        for record in table.records
    ]


def looks_like_table(row: Any) -> bool:
    return isinstance(row, dict) and all(name in row for name in REQUIRED)


def read_table(loaded: Loaded, log: Log) -> list[VideoInfo]:
    rows = table_rows(loaded)
    if not any(looks_like_table(row) for _, row in rows):
        raise InputError(f"{loaded.path}: not a step table: no row has the columns {', '.join(REQUIRED)}")
    videos: dict[str, dict[str, Any]] = {}
    for line, row in rows:
        try:
            video_id, parsed = _row(line, row)
        except ValueError as error:
            key = _cell(row, "video_id") if isinstance(row, dict) else None
            log.problem(key or None, f"{error}; row skipped", line)
            continue
        video = videos.setdefault(video_id, {"rows": [], "theme": "", "duration": None, "perspective": ""})
        for name, value in _video_fields(row, line, video_id, log).items():
            if not video[name]:
                video[name] = value
            elif video[name] != value:
                log.problem(
                    video_id,
                    f"{name} {value!r} differs from {video[name]!r} given before; kept the first",
                    line,
                )
        video["rows"].append(parsed)
    return [_video(video_id, video, log) for video_id, video in videos.items()]


def _cell(row: dict[str, Any], name: str) -> str:
    value = row.get(name)
    return "" if value is None else str(value).strip()


def _video_fields(row: dict[str, Any], line: int, video_id: str, log: Log) -> dict[str, Any]:
    """The per-video values this row gives (theme, duration, perspective), checked."""
    found: dict[str, Any] = {}
    if _cell(row, "theme"):
        found["theme"] = _cell(row, "theme")
    if _cell(row, "duration"):
        try:
            found["duration"] = seconds(_cell(row, "duration"))
        except ValueError as error:
            log.problem(video_id, f"duration ignored ({error})", line)
    if _cell(row, "perspective") in ("third", "first"):
        found["perspective"] = _cell(row, "perspective")
    elif _cell(row, "perspective"):
        log.problem(video_id, f"perspective {_cell(row, 'perspective')!r} ignored (third or first)", line)
    return found


def _row(line: int, row: Any) -> tuple[str, _Row]:
    if isinstance(row, Exception):
        raise row
    if not isinstance(row, dict):
        raise ValueError(f"expected an object, got {type(row).__name__}")
    if None in row:
        raise ValueError("more cells than the header has columns")
    lacking = [name for name in ("video_id", "start", "end", "text") if not _cell(row, name)]
    if lacking:
        raise ValueError(f"empty {', '.join(lacking)}")
    start, end = span(row["start"], row["end"])
    level = None
    if _cell(row, "level"):
        try:
            level = int(_cell(row, "level"))
        except ValueError:
            raise ValueError(f"level {row['level']!r} is not a whole number") from None
        if level < 0:
            raise ValueError(f"negative level {level}")
    extra = {key: value for key, value in row.items() if key not in KNOWN and value not in (None, "")}
    step = Step(
        start=start, end=end, text=_cell(row, "text"), category=_cell(row, "category") or None, extra=extra
    )
    row_id, parent = _cell(row, "id") or None, _cell(row, "parent") or None
    if row_id:
        step.extra["id"] = row_id
    return _cell(row, "video_id"), _Row(line, step, level, row_id, parent)


def _video(video_id: str, video: dict[str, Any], log: Log) -> VideoInfo:
    rows: list[_Row] = sorted(video["rows"], key=lambda r: (r.step.start, r.step.end))
    _nest(video_id, rows, log)
    missing = [] if video["theme"] else ["theme"]
    if not video["theme"]:
        log.problem(video_id, "no row gives a theme")
    return VideoInfo(
        video_id=video_id,
        source="table",
        perspective=video["perspective"] or "third",
        theme=video["theme"],
        duration=video["duration"],
        steps=_build([row for row in rows if row.up is None], 0, log, video_id),
        missing=missing,
    )


def _nest(video_id: str, rows: list[_Row], log: Log) -> None:
    """Points each row at the row it belongs to: its `parent`, or by level and containment."""
    named: dict[str, _Row] = {}
    for row in rows:
        if row.row_id and row.row_id in named:
            log.problem(video_id, f"id {row.row_id!r} used twice; `parent` refers to the first", row.line)
        elif row.row_id:
            named[row.row_id] = row
    for row in rows:
        if row.parent is not None:
            row.up = named.get(row.parent)
            if row.up is None or row.up is row:
                row.up = None
                log.problem(
                    video_id, f"parent {row.parent!r} is not a row of this video; kept at top level", row.line
                )
        elif row.given_level:
            above = [
                o
                for o in rows
                if (o.given_level or 0) == row.given_level - 1
                and o.step.start <= row.step.start <= o.step.end
                and o is not row
            ]
            row.up = above[-1] if above else None
            if row.up is None:
                log.problem(
                    video_id, f"no level-{row.given_level - 1} step contains it; kept at top level", row.line
                )
    for row in rows:
        seen, walk = {id(row)}, row.up
        while walk is not None:
            if id(walk) in seen:
                log.problem(video_id, "its parents loop back to it; kept at top level", row.line)
                row.up = None
                break
            seen.add(id(walk))
            walk = walk.up
    for row in rows:
        if row.up is not None:
            row.up.kids.append(row)


def _build(rows: list[_Row], level: int, log: Log, video_id: str) -> list[Step]:
    steps = []
    for row in rows:
        if row.given_level is not None and row.given_level != level:
            log.note(
                video_id,
                "levels placed by their parent",
                f"line {row.line}: level {row.given_level} -> {level}",
            )
        row.step.level = level
        row.step.children = _build(row.kids, level + 1, log, video_id)
        steps.append(row.step)
    return by_time(steps)
