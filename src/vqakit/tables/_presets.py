"""Presets: how a published benchmark's release (its files as downloaded) becomes a benchmark
folder. A benchmark system registers each with `register_preset`; `vqakit import <name>` is
generated from the registry, so a preset needs no command of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from vqakit.plugins import load_plugins
from vqakit.tables._import import TableImport


@dataclass(frozen=True)
class PresetOption:
    """A command-line option of one preset: `--name` (a flag when `flag`)."""

    name: str  # the keyword argument of `run`, written with dashes on the command line
    help: str
    flag: bool = False
    choices: tuple[str, ...] = ()
    default: Any = None


@dataclass(frozen=True)
class Preset:
    name: str  # `vqakit import <name>`
    title: str  # the benchmark's own name, e.g. "Video-MME"
    summary: str  # one line: what it reads
    # run(release folder, videos folder, out, split=..., **options) -> what was imported
    run: Callable[..., TableImport]
    homepage: str = ""
    splits: tuple[str, ...] = ()  # the splits the release has, first the default
    options: tuple[PresetOption, ...] = ()
    submission: str | None = None  # `vqakit export RUN --format <this>` for its hidden answers
    notes: tuple[str, ...] = field(default_factory=tuple)  # shown after an import


_PRESETS: dict[str, Preset] = {}


def register_preset(preset: Preset) -> Preset:
    _PRESETS[preset.name] = preset
    return preset


def presets() -> dict[str, Preset]:
    load_plugins()
    return dict(sorted(_PRESETS.items()))
