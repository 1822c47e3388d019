"""YouCook2 (`youcookii_annotations_*.json`) into video info.

Shape: `{"database": {youtube_id: {"duration", "subset", "recipe_type", "annotations":
[{"segment": [start, end], "id", "sentence"}], "video_url"}}}`. Times are absolute seconds and
the steps are flat, so every step is level 0 with no category. The recipe type is a numeric code
("113"); the theme is its name from a label map when one is given (the dataset's
`label_foodtype.csv`: one `code,name` line per recipe type, no header), else "recipe 113".
The segments-only test file has no sentences: those steps are imported with empty text and the
video lists "step text" as missing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.builders import InputError
from vqakit.files import find_unusable, parse_rows, sniff_format
from vqakit.systems.instructionbench.importers._common import (
    RECORD_ERRORS,
    Log,
    by_time,
    load,
    seconds,
    span,
    text_of,
)
from vqakit.systems.instructionbench.video_info import Step, VideoInfo


def read_label_map(path: str | Path, problems: list[str] | None = None) -> dict[str, str]:
    """{recipe code: name} from a `code,name` CSV (a header row is skipped; TSV too) or a JSON
    object. A line or entry that cannot be read is added to `problems` (`FILE:LINE: problem`)
    and skipped; the file fails as a whole only when no entry can be read."""
    loaded = load(path)
    problems = problems if problems is not None else []
    names: dict[str, str] = {}
    if loaded.is_json and isinstance(loaded.data, dict):
        for code, name in loaded.data.items():
            if find_unusable(name) or not isinstance(name, str | int | float) or isinstance(name, bool):
                problems.append(f"{loaded.path}: record {code}: -: expected a recipe name, got {name!r}")
                continue
            names[str(code).strip()] = str(name).strip()
    elif loaded.is_json:
        raise InputError(f"{loaded.path}: a JSON label map must be an object of code: name")
    else:
        tabs = sniff_format(loaded.text, loaded.path) == "tsv"
        for row in parse_rows(loaded.text, delimiter="\t" if tabs else ","):
            if row.problem:
                problems.append(f"{loaded.path}:{row.line}: -: {row.problem}; skipped")
                continue
            code, name = row.cells[0].strip(), ",".join(row.cells[1:]).strip()
            if not code or not name:
                problems.append(
                    f"{loaded.path}:{row.line}: -: expected `code,name`, got {','.join(row.cells)!r}"
                )
                continue
            if row.line == 1 and not code.isdigit():
                continue  # a header such as "id,name"
            names[code] = name
    if not names:
        listed = "".join(f"\n  {problem}" for problem in problems[:5])
        raise InputError(f"{loaded.path}: no `code,name` lines in the label map{listed}")
    return names


def read_youcook2(data: Any, log: Log, labels: dict[str, str] | None = None) -> list[VideoInfo]:
    database = data.get("database") if isinstance(data, dict) else None
    if not isinstance(database, dict):
        raise InputError(f'{log.path}: not a YouCook2 file: no "database" object of videos')
    videos = []
    for video_id, record in database.items():
        if log.refused(str(video_id), record):
            continue
        try:
            videos.append(_video(str(video_id), record, log, labels))
        except RECORD_ERRORS as error:
            log.problem(video_id, f"unreadable video record ({error}); skipped")
    return videos


def _video(video_id: str, record: Any, log: Log, labels: dict[str, str] | None) -> VideoInfo:
    if not isinstance(record, dict):
        raise ValueError(f"expected an object, got {type(record).__name__}")
    missing: list[str] = []
    code = str(record.get("recipe_type", "")).strip()
    if labels is not None and code in labels:
        theme = labels[code]
    else:
        theme = f"recipe {code}" if code else ""
        if labels is not None:
            log.note(video_id, "recipe type not in the label map", code or "no recipe_type")
    if not code:
        missing.append("theme")
        log.problem(video_id, "no recipe_type: the theme is unknown")
    duration = None
    try:
        duration = seconds(record.get("duration"))
    except ValueError:
        missing.append("duration")
        log.problem(video_id, f"no usable duration ({record.get('duration')!r})")
    annotations = record.get("annotations")
    if not isinstance(annotations, list):
        annotations = []
    steps, untexted = [], 0
    for position, item in enumerate(annotations):
        step_key = item.get("id", position) if isinstance(item, dict) else position
        try:
            start, end = span(*item["segment"])
        except RECORD_ERRORS as error:
            log.problem(video_id, f"step {step_key}: unusable segment ({error}); skipped")
            continue
        text = text_of(item.get("sentence"))
        untexted += not text
        if duration is not None and end > duration + 1:
            log.note(video_id, "steps ending after the video", f"step {step_key} ends at {end:g}")
        steps.append(Step(start=start, end=end, text=text, extra={"id": step_key}))
    if not steps:
        missing.append("steps")
        log.problem(video_id, "no steps")
    elif untexted:
        missing.append("step text")
        log.problem(video_id, f"{untexted} step(s) without a sentence (a segments-only file?)")
    extra = {key: record[key] for key in ("subset", "video_url") if key in record}
    extra["recipe_type"] = code
    return VideoInfo(
        video_id=video_id,
        source="youcook2",
        theme=theme,
        duration=duration,
        steps=by_time(steps),
        missing=missing,
        extra=extra,
    )
