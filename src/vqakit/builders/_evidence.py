"""The evidence a builder used for a sample, for the people who review it (`vqakit studio`).

A benchmark system registers a hook `(benchmark folder, sample) -> [Evidence]` that reads what
its builder kept (step annotations, filter verdicts, option checks) from the folder's `build/`
files; the studio shows every hook's evidence beside what any benchmark has (facts, passages,
clips, metadata). Lines with a time are shown as links that seek the player.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vqakit.plugins import load_plugins
from vqakit.schema import Sample


@dataclass(frozen=True)
class EvidenceLine:
    text: str
    start_s: float | None = None  # seconds of the sample's first video
    end_s: float | None = None


@dataclass(frozen=True)
class Evidence:
    title: str
    lines: list[EvidenceLine] = field(default_factory=list)


EvidenceHook = Callable[[Path, Sample], list[Evidence]]

_HOOKS: list[EvidenceHook] = []


def register_evidence(hook: EvidenceHook) -> EvidenceHook:
    if hook not in _HOOKS:
        _HOOKS.append(hook)
    return hook


def evidence_hooks() -> list[EvidenceHook]:
    load_plugins()
    return list(_HOOKS)
