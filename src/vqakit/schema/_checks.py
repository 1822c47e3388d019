"""Checks of sample content that benchmark systems add to `validate` (registered by decorator).

A check gets a sample and the folder's corpora and returns `(field, message)` for each problem;
the folder reader turns them into `FILE:LINE: field: message` lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from vqakit.plugins import load_systems
from vqakit.schema._corpus import Clip, Passage
from vqakit.schema._sample import Sample


@dataclass(frozen=True)
class Corpora:
    clips: Mapping[str, Clip]
    passages: Mapping[str, Passage]


SampleCheck = Callable[[Sample, Corpora], Iterable[tuple[str, str]]]

_CHECKS: list[SampleCheck] = []


def register_sample_check(check: SampleCheck) -> SampleCheck:
    """Decorator: run `check` on every sample that `validate` reads."""
    if check not in _CHECKS:
        _CHECKS.append(check)
    return check


def sample_checks() -> list[SampleCheck]:
    load_systems()
    return list(_CHECKS)
