"""The benchmark folder a judge is grading for, set by whoever runs the judges.

`Judge.grade(model, sample, prediction, earlier)` gets no benchmark; a judge that must open a
file the sample names (a subtitle file, say) reads the folder with `benchmark_root()`. The runner
sets it around its judging pass (`use_benchmark_root`), and so must any other caller of judges.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_ROOT: ContextVar[Path | None] = ContextVar("vqakit_benchmark_root", default=None)


def benchmark_root() -> Path | None:
    """The folder of the benchmark being judged; None outside `use_benchmark_root`."""
    return _ROOT.get()


@contextmanager
def use_benchmark_root(root: str | Path | None) -> Iterator[None]:
    """Judge the samples of the benchmark in `root` inside this block."""
    token = _ROOT.set(None if root is None else Path(root))
    try:
        yield
    finally:
        _ROOT.reset(token)
