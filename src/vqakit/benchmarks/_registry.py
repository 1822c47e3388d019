"""Benchmarks addressed by name (the ones shipped in the package) or by folder path."""

from __future__ import annotations

import contextlib
from pathlib import Path

from vqakit.files import did_you_mean

_BUILT_IN = Path(__file__).parent

BUILT_IN_NAMES = ("sample",)
CARD = "benchmark.yaml"


class BenchmarkNotFound(LookupError):
    """BENCH names neither a folder nor a shipped benchmark: a mistake in the command (the
    command line exits 2), said with the closest names there are."""


def _nearby(path: Path) -> list[str]:
    """Shipped names, and the benchmark folders beside where `path` points (as written)."""
    found = list(BUILT_IN_NAMES)
    parent = path.parent
    with contextlib.suppress(OSError):  # an unreadable parent offers nothing
        found += [
            str(parent / child.name) if str(parent) != "." else child.name
            for child in sorted(parent.iterdir())
            if child.is_dir() and (child / CARD).is_file()
        ]
    return found


def require_benchmark(name_or_path: str | Path) -> Path:
    """`resolve_benchmark`, raising `BenchmarkNotFound` (with a "did you mean") when there is no
    such folder and no shipped benchmark of that name."""
    root = resolve_benchmark(name_or_path)
    if root.is_dir():
        return root
    text = str(name_or_path)
    hint = did_you_mean(text, _nearby(Path(text))).strip()
    raise BenchmarkNotFound(
        f"{text}: no such benchmark folder, and no shipped benchmark of that name "
        f"(shipped: {', '.join(BUILT_IN_NAMES)}){'; ' + hint if hint else ''}"
    )


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
