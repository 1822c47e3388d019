"""Benchmarks addressed by name (the ones shipped in the package) or by folder path."""

from __future__ import annotations

from pathlib import Path

_BUILT_IN = Path(__file__).parent

BUILT_IN_NAMES = ("sample",)


def resolve_benchmark(name_or_path: str | Path) -> Path:
    """The folder of a built-in benchmark name, or the given path itself.

    An existing folder always wins over a built-in name, so `./sample` is the local folder.
    """
    path = Path(name_or_path)
    if path.is_dir():
        return path
    if str(name_or_path) in BUILT_IN_NAMES:
        return _BUILT_IN / str(name_or_path)
    return path


def resolve_media(reference: str) -> Path:
    """`sample:media/clip.mp4` to that file inside a built-in benchmark; else a plain path."""
    name, sep, relative = reference.partition(":")
    if sep and name in BUILT_IN_NAMES:
        return resolve_benchmark(name) / relative
    return Path(reference)
