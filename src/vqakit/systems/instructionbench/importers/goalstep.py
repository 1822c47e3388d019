"""Ego4D Goal-Step (`goalstep_*.json`) into video info.

Shape: `{"videos": [{video_uid, start_time, end_time, goal_category "DOMAIN:GOAL",
goal_description, segments: [step]}]}`; a step has `start_time, end_time, step_category,
step_description, is_relevant, is_procedural, summary` and its own `segments` of substeps with
the same fields. Three levels on one clock: the goal is the video, steps are level 0 and
substeps level 1. The step text is the annotator's description, its category the taxonomy
label (trimming counts it); the flags and summaries stay in `extra`.

- The goal segment gives the window (`start`/`end`) and, for want of anything better, the
  duration (its `end_time`); the theme is the goal description.
- Real-data quirks are read and noted: integer times, missing flags, and substeps up to
  `SPILL_SECONDS` outside their step (kept as they are). A substep further out is left out
  as a problem.
- `grp-<uid>` ids are several videos joined end to end on one clock: the id is kept and
  `extra["joined_videos"]` is set.
- Test files (`step_segments` of descriptions with counts, no times, no goal) are imported with
  untimed steps; `missing` says what is absent.
"""

from __future__ import annotations

from typing import Any

from vqakit.builders import InputError
from vqakit.systems.instructionbench.importers._common import (
    RECORD_ERRORS,
    Log,
    by_time,
    is_integer_time,
    span,
    text_of,
)
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

SPILL_SECONDS = 20.0  # how far a substep may lie outside its step and still be kept
FLAGS = ("is_relevant", "is_procedural")
KEPT = ("is_relevant", "is_procedural", "is_continued", "summary")


def read_goalstep(data: Any, log: Log) -> list[VideoInfo]:
    records = data.get("videos") if isinstance(data, dict) else None
    if not isinstance(records, list):
        raise InputError(f'{log.path}: not a Goal-Step file: no "videos" list')
    videos: dict[str, VideoInfo] = {}
    for position, record in enumerate(records):
        if log.refused(f"#{position}", record):
            continue
        key = str(record.get("video_uid", f"#{position}")) if isinstance(record, dict) else f"#{position}"
        try:
            info = _video(record, log, key)
        except RECORD_ERRORS as error:
            log.problem(key, f"unreadable video record ({error}); skipped")
            continue
        if info.video_id in videos:
            log.problem(key, "listed twice; the later record is left out")
            continue
        videos[info.video_id] = info
    return list(videos.values())


class _Quirks:
    """Counts one video's tolerated quirks, noted once per video."""

    def __init__(self) -> None:
        self.integer_times = 0
        self.missing_flags = 0

    def look(self, segment: dict[str, Any], flags: bool = True) -> None:
        self.integer_times += sum(is_integer_time(segment.get(k)) for k in ("start_time", "end_time"))
        self.missing_flags += sum(flag not in segment for flag in FLAGS) if flags else 0

    def note(self, log: Log, key: str) -> None:
        if self.integer_times:
            log.note(key, "integer times", f"{self.integer_times} read as seconds")
        if self.missing_flags:
            log.note(key, "missing flags", f"{self.missing_flags} of {', '.join(FLAGS)} absent")


def _video(record: Any, log: Log, key: str) -> VideoInfo:
    if not isinstance(record, dict):
        raise ValueError(f"expected an object, got {type(record).__name__}")
    video_id = text_of(record.get("video_uid"))
    if not video_id:
        raise ValueError("no video_uid")
    if "segments" not in record and "step_segments" in record:
        return _untimed(video_id, record, log, key)
    quirks = _Quirks()
    quirks.look(record, flags=False)  # a goal has no is_relevant of its own
    missing: list[str] = []
    start = end = None
    try:
        start, end = span(record.get("start_time"), record.get("end_time"))
    except ValueError as error:
        missing.append("duration")
        log.problem(key, f"no usable goal start_time/end_time ({error})")
    theme = text_of(record.get("goal_description")) or _goal_name(record.get("goal_category"))
    if not theme:
        missing.append("theme")
        log.problem(key, "no goal_description or goal_category")
    steps = []
    for position, raw in enumerate(record.get("segments") or []):
        step = _step(raw, 0, log, key, f"step {position}", quirks)
        if step is not None:
            steps.append(step)
    if not steps:
        missing.append("steps")
        log.problem(key, "no steps")
    quirks.note(log, key)
    extra = {
        k: record[k] for k in ("goal_category", "goal_wikihow_url", "summary", "is_procedural") if k in record
    }
    if video_id.startswith("grp-"):
        extra["joined_videos"] = True
    return VideoInfo(
        video_id=video_id,
        source="goalstep",
        theme=theme,
        duration=end,
        start=start,
        end=end,
        steps=by_time(steps),
        missing=missing,
        extra=extra,
    )


def _step(raw: Any, level: int, log: Log, key: str, label: str, quirks: _Quirks) -> Step | None:
    if not isinstance(raw, dict):
        log.problem(key, f"{label}: not an object; skipped")
        return None
    quirks.look(raw)
    try:
        start, end = span(raw.get("start_time"), raw.get("end_time"))
    except ValueError as error:
        log.problem(key, f"{label}: unusable times ({error}); skipped")
        return None
    text = text_of(raw.get("step_description")) or _after_colon(raw.get("step_category"))
    if not text:
        log.problem(key, f"{label}: no step_description or step_category; skipped")
        return None
    step = Step(
        start=start,
        end=end,
        text=text,
        level=level,
        category=text_of(raw.get("step_category")) or None,
        extra={k: raw[k] for k in KEPT if k in raw},
    )
    substeps = (raw.get("segments") or []) if level == 0 else []  # substeps have no substeps
    for position, sub in enumerate(substeps):
        child = _step(sub, level + 1, log, key, f"{label}.{position}", quirks)
        if child is None:
            continue
        spill = max(step.start - child.start, child.end - step.end)
        if spill > SPILL_SECONDS:
            log.problem(key, f"{label}.{position}: substep lies {spill:.1f} s outside its step; left out")
            continue
        if spill > 0:
            log.note(key, "substeps outside their step", f"{label}.{position} by {spill:.2f} s")
        step.children.append(child)
    step.children = by_time(step.children)
    return step


def _untimed(video_id: str, record: dict[str, Any], log: Log, key: str) -> VideoInfo:
    """A test-split record: step descriptions with counts, no times and no goal."""
    steps = [
        Step(
            start=None,
            end=None,
            text=text_of(item.get("step_description")),
            extra={"segment_count": item.get("segment_count")},
        )
        for item in record.get("step_segments") or []
        if isinstance(item, dict) and text_of(item.get("step_description"))
    ]
    theme = text_of(record.get("goal_description")) or _goal_name(record.get("goal_category"))
    missing = ["step times", "duration"] + ([] if theme else ["theme"]) + ([] if steps else ["steps"])
    log.problem(key, f"no times (a test-split file); imported without: {', '.join(missing)}")
    extra: dict[str, Any] = {"joined_videos": True} if video_id.startswith("grp-") else {}
    return VideoInfo(
        video_id=video_id,
        source="goalstep",
        theme=theme,
        duration=None,
        steps=steps,
        missing=missing,
        extra=extra,
    )


def _goal_name(category: Any) -> str:
    """Turns "COOKING:MAKE_OMELET" into "make omelet"."""
    return _after_colon(category).replace("_", " ").lower()


def _after_colon(value: Any) -> str:
    return text_of(value).rpartition(":")[2].strip()
