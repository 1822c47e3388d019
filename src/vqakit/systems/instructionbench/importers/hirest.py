"""HiREST (`all_data_*.json`) into video info.

Shape: `{query: {"<youtube_id>.mp4": {"relevant", "clip", "v_duration", "bounds": [s, e],
"steps": [{"index", "heading", "absolute_bounds": [s, e]}]}}}`. The theme is the query.

- `clip` true: only the moment `bounds` is about the query; it becomes the video info's
  `start`/`end` (the steps lie inside it). `clip` false: the whole video is about the query,
  `bounds` is the placeholder [0, 0] and the window is left open (`start`/`end` None).
- `relevant` false marks a video that does not show the query's task (HiREST keeps such videos
  as retrieval distractors): the query is not its theme and it has no steps, so it is skipped
  with a problem line. Records that are empty objects (the `*_negative_samples.json` file) are
  distractors too and are skipped, counted in one line.
- Test files have no steps and placeholder bounds ([0, 1]): the video is imported with its theme
  and duration, and `missing` lists "steps" (and "moment bounds" for a clippable one).
- A video listed under two queries is imported once per query, each with its own theme and
  steps (and noted): the ids repeat, the annotations differ.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any

from vqakit.builders import VIDEO_SUFFIXES, InputError
from vqakit.systems.instructionbench.importers._common import (
    RECORD_ERRORS,
    Log,
    by_time,
    seconds,
    span,
    text_of,
)
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

FIELDS = ("relevant", "clip", "v_duration", "bounds", "steps")


def looks_like_hirest(data: Any) -> bool:
    """True for a {query: {"<video file>": {...}}} object (used by format detection)."""
    if not isinstance(data, dict) or not data:
        return False
    for videos in list(data.values())[:20]:
        for name, record in list(videos.items())[:5] if isinstance(videos, dict) else []:
            video_file = str(name).lower().endswith(VIDEO_SUFFIXES)
            if isinstance(record, dict) and (set(record) & set(FIELDS) or (video_file and not record)):
                return True
    return False


def read_hirest(data: Any, log: Log) -> list[VideoInfo]:
    if not looks_like_hirest(data):
        raise InputError(f'{log.path}: not a HiREST file: expected {{query: {{"<video>.mp4": {{...}}}}}}')
    kept: list[VideoInfo] = []
    seen: set[str] = set()
    empty = 0
    for query, videos in data.items():
        if not isinstance(videos, dict):
            log.problem(str(query), "expected an object of videos; skipped")
            continue
        for name, record in videos.items():
            key = f"{name} ({query})"
            if isinstance(record, dict) and not record:
                empty += 1
                continue
            if log.refused(key, record):
                continue
            try:
                info = _video(str(query), str(name), record, log, key)
            except RECORD_ERRORS as error:
                log.problem(key, f"unreadable video record ({error}); skipped")
                continue
            if info is None:
                continue
            if info.video_id in seen:
                log.note(key, "videos listed under more than one query", "kept once per query")
            seen.add(info.video_id)
            kept.append(info)
    if empty:
        log.problem(None, f"{empty} record(s) with no annotation (retrieval distractors); skipped")
    return kept


def _video(query: str, name: str, record: Any, log: Log, key: str) -> VideoInfo | None:
    if not isinstance(record, dict):
        raise ValueError(f"expected an object, got {type(record).__name__}")
    if record.get("relevant") is False:
        log.problem(key, "marked not relevant to its query (a distractor); skipped")
        return None
    missing: list[str] = []
    duration = None
    try:
        duration = seconds(record.get("v_duration"))
    except ValueError:
        missing.append("duration")
        log.problem(key, f"no usable v_duration ({record.get('v_duration')!r})")
    clip = bool(record.get("clip"))
    start = end = None
    if clip:
        start, end = _moment(record.get("bounds"))
        if start is None:
            missing.append("moment bounds")
            log.problem(key, f"clippable but its bounds are a placeholder ({record.get('bounds')!r})")
    steps = []
    raw_steps = record.get("steps") if isinstance(record.get("steps"), list) else []
    for position, item in enumerate(raw_steps):
        index = item.get("index", position) if isinstance(item, dict) else position
        try:
            step_start, step_end = span(*item["absolute_bounds"])
            text = text_of(item.get("heading"))
            if not text:
                raise ValueError("no heading")
        except RECORD_ERRORS as error:
            log.problem(key, f"step {index}: unusable ({error}); skipped")
            continue
        if start is not None and end is not None and (step_start < start - 1 or step_end > end + 1):
            log.note(key, "steps outside the moment bounds", f"step {index}")
        steps.append(Step(start=step_start, end=step_end, text=text, extra={"index": index}))
    if not steps:
        missing.append("steps")
        if raw_steps:
            why = "none usable"
        elif not clip:
            why = "the whole video matches the query; HiREST gives steps only inside moments"
        else:
            why = "a test-split file?" if "moment bounds" in missing else "none given for the moment"
        log.problem(key, f"no steps ({why})")
    return VideoInfo(
        video_id=PurePosixPath(name).stem if name.lower().endswith(VIDEO_SUFFIXES) else name,
        source="hirest",
        theme=query.strip(),
        duration=duration,
        start=start,
        end=end,
        steps=by_time(steps),
        missing=missing,
        extra={"file": name, "clip": clip},
    )


def _moment(bounds: Any) -> tuple[float | None, float | None]:
    """The moment window, or (None, None) for a placeholder such as [0, 0] or [0, 1]."""
    try:
        start, end = span(*bounds)
    except RECORD_ERRORS:
        return None, None
    if end - start <= 1:
        return None, None
    return start, end
