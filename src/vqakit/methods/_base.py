"""The method registry and what every method gets to work with."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.schema import Prediction, Protocol, Sample

MethodFn = Callable[[Sample, "MethodContext"], Awaitable[Prediction]]
METHODS: dict[str, MethodFn] = {}
NEEDS_MODEL: set[str] = set()


def method(name: str, *, needs_model: bool) -> Callable[[MethodFn], MethodFn]:
    def register(fn: MethodFn) -> MethodFn:
        METHODS[name] = fn
        if needs_model:
            NEEDS_MODEL.add(name)
        return fn

    return register


def get_method(name: str) -> MethodFn:
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(sorted(METHODS))}")
    return METHODS[name]


@dataclass
class MethodContext:
    root: Path  # benchmark folder
    protocol: Protocol  # frames, short_side, prompt, subtitles (already merged with overrides)
    model: Any = None  # vqakit.models.Model, for methods that need one
    seed: int = 0
    options: dict[str, Any] = field(default_factory=dict)  # method options, e.g. {"hints": "circle+classes"}
    shared: dict[str, Any] = field(default_factory=dict)  # per-run objects (e.g. an embedder)
