"""What benchmark systems add to the report, registered by decorator:

- sections: `(results) -> [Section]`, tables shown after the accuracy breakdowns;
- sample details: `(sample, prediction) -> SampleDetail | None`, lines shown in a sample's card;
- judged details: `(sample, prediction, records) -> SampleDetail | None`, the same from the
  sample's judgment records too (`{judge name: record}`), e.g. claims with their labels;
- shown frames: `(benchmark, sample, prediction) -> ShownFrames | None`, which frames a card
  shows when they are not those the prediction saved for the sample (e.g. a retrieved clip's).

Sections and details carry plain text; the page templates do all the HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vqakit.plugins import load_systems
from vqakit.schema import Benchmark, Prediction, Sample


@dataclass(frozen=True)
class Table:
    columns: list[str]
    rows: list[list[str]]  # cells as text; every column but the first is numeric (right-aligned)


@dataclass(frozen=True)
class Section:
    title: str
    table: Table
    note: str = ""
    lead: bool = False  # shown right under the headline numbers (a system's main scores)


@dataclass(frozen=True)
class ShownFrames:
    """The frames a sample card shows, at their times: a strip the run kept (a path relative to
    the run folder), or else a video of the benchmark to decode once at those times."""

    times_s: list[float]
    strip: str | None = None
    video: str | None = None


@dataclass(frozen=True)
class SampleDetail:
    lines: list[str]  # shown one per line
    folded_title: str = ""  # a collapsed block under the lines: its title ...
    folded: list[tuple[str, str]] = field(default_factory=list)  # ... and (heading, text) entries


SectionHook = Callable[[dict[str, Any]], list[Section]]
DetailHook = Callable[[Sample, Prediction], "SampleDetail | None"]
JudgedDetailHook = Callable[[Sample, Prediction, dict[str, dict[str, Any]]], "SampleDetail | None"]
FramesHook = Callable[[Benchmark, Sample, Prediction], "ShownFrames | None"]

_SECTIONS: list[SectionHook] = []
_DETAILS: list[DetailHook] = []
_JUDGED_DETAILS: list[JudgedDetailHook] = []
_FRAMES: list[FramesHook] = []


def _add(registry: list, hook: Any) -> Any:
    if hook not in registry:
        registry.append(hook)
    return hook


def register_section(hook: SectionHook) -> SectionHook:
    return _add(_SECTIONS, hook)


def register_sample_detail(hook: DetailHook) -> DetailHook:
    return _add(_DETAILS, hook)


def register_judged_detail(hook: JudgedDetailHook) -> JudgedDetailHook:
    return _add(_JUDGED_DETAILS, hook)


def register_shown_frames(hook: FramesHook) -> FramesHook:
    return _add(_FRAMES, hook)


def section_hooks() -> list[SectionHook]:
    load_systems()
    return list(_SECTIONS)


def detail_hooks() -> list[DetailHook]:
    load_systems()
    return list(_DETAILS)


def judged_detail_hooks() -> list[JudgedDetailHook]:
    load_systems()
    return list(_JUDGED_DETAILS)


def frames_hooks() -> list[FramesHook]:
    load_systems()
    return list(_FRAMES)


def percent(value: float | None) -> str:
    """`12.3%`, or `n/a` for a missing value (the report's one way to print a share)."""
    return "n/a" if value is None else f"{100 * value:.1f}%"
