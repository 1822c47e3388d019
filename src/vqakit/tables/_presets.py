"""Presets: how a published benchmark's release (its files as downloaded) becomes a benchmark
folder. A benchmark system registers each with `register_preset`; `vqakit import <name>` is
generated from the registry, so a preset needs no command of its own."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
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

    @property
    def command(self) -> str:
        """The command that imports with it, as folders' markers record it."""
        return f"import {self.name}"

    def import_checked(
        self, release: Path, videos: Path, out: Path, split: str | None = None, **options: Any
    ) -> TableImport:
        """`vqakit import <name>`: check `out` first (new, empty, or an earlier import of this
        preset; outside the release and videos: `OutFolderRefused`), then `run`."""
        from vqakit.builders import check_benchmark_out

        paths = [value for value in options.values() if isinstance(value, PurePath)]
        check_benchmark_out(out, self.command, inputs=[release, videos, *paths])
        return self.run(release, videos, out, split=split, **options)


_PRESETS: dict[str, Preset] = {}


def register_preset(preset: Preset) -> Preset:
    _PRESETS[preset.name] = preset
    return preset


def presets() -> dict[str, Preset]:
    load_plugins()
    return dict(sorted(_PRESETS.items()))
