"""Trimming long step-annotated videos (Ego4D Goal-Step, Ego-Exo4D) into clips, by the paper's
rule: accumulate steps in order from the first; close the clip as soon as all of these hold:

1. its duration is over 4 minutes (`min_seconds`, strictly more);
2. it has at least 7 steps (`min_steps`);
3. its distinct step categories number at least half its steps (`distinct_share`);
4. its steps number at least half the longest run of one category repeated back to back
   (`run_share`).

Decisions where the rule leaves room, and why:

- "The next clip starts from the current step": the step that closed a clip also opens the next
  one, so consecutive clips share that one step. Read literally, "the current step" is the one
  just added; a fresh start at the following step would not need saying. Clips therefore cover
  the steps without gaps and overlap by exactly one step.
- The tail: the steps after the last closed clip (all of them, when none closes) never met the
  rule, so they form no clip and are left out; `split_video` returns them so that callers can
  report them. A video too short or too repetitive to close a clip yields no clip at all.
- Condition 4 measures the run inside the clip, as written. A run cannot be longer than the clip
  holding it, so this condition always holds; it is kept as a check (and in `TrimRules`) so the
  reading is visible, not silently dropped.
- What is accumulated: top-level steps (their substeps travel with them). Ego-Exo4D is the
  exception: its annotated segments are the leaf keysteps and the groups above them come from
  the taxonomy, so keystep videos accumulate leaves and each clip keeps the groups of its leaves,
  narrowed to them. A step's category is its `category` (Goal-Step step_category, keystep id),
  or its text when it has none.
- A clip's window runs from its first step's start to its latest end (the last step's end unless
  an earlier step outlasts it); its id is "<video_id>@<start>-<end>" with compact times.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vqakit.systems.instructionbench.video_info import Step, VideoInfo

TRIMMED_SOURCES = frozenset({"goalstep", "keystep"})
LEAF_SOURCES = frozenset({"keystep"})  # sources whose annotated steps are the leaves


@dataclass(frozen=True)
class TrimRules:
    min_seconds: float = 240.0
    min_steps: int = 7
    distinct_share: float = 0.5
    run_share: float = 0.5


RULES = TrimRules()


@dataclass
class Trim:
    """The clips of one video and the tail steps left out after the last one."""

    clips: list[VideoInfo] = field(default_factory=list)
    tail: list[Step] = field(default_factory=list)


def category_of(step: Step) -> str:
    return step.category if step.category is not None else step.text.strip().lower()


def longest_run(categories: Sequence[str]) -> int:
    """The most times one category occurs back to back."""
    best = run = 0
    for index, category in enumerate(categories):
        run = run + 1 if index and categories[index - 1] == category else 1
        best = max(best, run)
    return best


def clip_closes(units: Sequence[Step], rules: TrimRules = RULES) -> bool:
    """Whether these steps, in order, satisfy all four closing conditions."""
    count = len(units)
    if count < rules.min_steps or count == 0:
        return False
    duration = max(u.end for u in units) - units[0].start
    if not duration > rules.min_seconds:
        return False
    categories = [category_of(u) for u in units]
    if len(set(categories)) < rules.distinct_share * count:
        return False
    return count >= rules.run_share * longest_run(categories)


def clip_ranges(
    units: Sequence[Step], rules: TrimRules = RULES
) -> tuple[list[tuple[int, int]], tuple[int, int] | None]:
    """([(first, last), ...] inclusive unit indexes of the closed clips, the tail's (first, last)
    or None). Clip k+1 starts at clip k's last unit; the tail is what follows the last clip."""
    ranges: list[tuple[int, int]] = []
    first = 0
    for index in range(len(units)):
        if index > first and clip_closes(units[first : index + 1], rules):
            ranges.append((first, index))
            first = index
    tail_first = first + 1 if ranges else 0
    tail = (tail_first, len(units) - 1) if tail_first < len(units) else None
    return ranges, tail


def trim_units(info: VideoInfo) -> list[Step]:
    """The steps trimming accumulates: leaf keysteps for Ego-Exo4D, top-level steps otherwise."""
    if info.source in LEAF_SOURCES:
        return [step for step in info.flat_steps() if not step.children]
    return list(info.steps)


def needs_trimming(info: VideoInfo) -> bool:
    """Goal-Step and keystep videos with timed steps are trimmed; others are used whole (and an
    untimed test-split video cannot be trimmed)."""
    units = trim_units(info)
    return info.source in TRIMMED_SOURCES and bool(units) and all(_timed(u) for u in units)


def split_video(info: VideoInfo, rules: TrimRules = RULES) -> Trim:
    """The video's clips (in order) and the tail steps left out."""
    units = trim_units(info)
    if not all(_timed(u) for u in units):
        raise ValueError(f"{info.video_id}: steps without times cannot be trimmed")
    ranges, tail = clip_ranges(units, rules)
    clips = [_clip(info, units[first : last + 1], number) for number, (first, last) in enumerate(ranges)]
    return Trim(clips, [u.model_copy(deep=True) for u in units[tail[0] : tail[1] + 1]] if tail else [])


def trim_video(info: VideoInfo, rules: TrimRules = RULES) -> list[VideoInfo]:
    """The video's clips in order; see the module docstring for the rule and the tail."""
    return split_video(info, rules).clips


def compact_time(value: float) -> str:
    """12.0 -> "12", 81.10459 -> "81.1", 0.021 -> "0.02"."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _timed(step: Step) -> bool:
    return step.start is not None and step.end is not None


def _clip(info: VideoInfo, units: list[Step], number: int) -> VideoInfo:
    start = units[0].start
    end = max(u.end for u in units)
    if info.source in LEAF_SOURCES:
        steps = _narrow(info.steps, {id(u) for u in units})
    else:
        steps = [u.model_copy(deep=True) for u in units]
    return info.model_copy(
        update={
            "clip_id": f"{info.video_id}@{compact_time(start)}-{compact_time(end)}",
            "start": start,
            "end": end,
            "steps": steps,
            "missing": list(info.missing),
            "extra": {**info.extra, "clip_index": number},
        },
        deep=True,
    )


def _narrow(steps: list[Step], keep: set[int]) -> list[Step]:
    """A copy of the tree holding only the kept leaves, each group's window shrunk to them."""
    narrowed = []
    for step in steps:
        if not step.children:
            if id(step) in keep:
                narrowed.append(step.model_copy(deep=True))
            continue
        children = _narrow(step.children, keep)
        if children:
            window = {"start": children[0].start, "end": max(c.end for c in children)}
            narrowed.append(step.model_copy(update={"children": children, **window}))
    return narrowed
