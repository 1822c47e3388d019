"""`vqakit export-bench`: one entry for the benchmark exports."""

from __future__ import annotations

from pathlib import Path

from vqakit.benchmarks import load_benchmark
from vqakit.extras import MissingExtra, has_extra, install_line
from vqakit.tables._export_hf import BenchExport, export_hf
from vqakit.tables._export_lmms import export_lmms_eval

EXPORT_FORMATS = ("hf", "lmms-eval")


def export_benchmark(
    bench: str | Path,
    fmt: str,
    out: str | Path,
    *,
    with_media: bool = False,
    task: str | None = None,
    frames: str | None = None,
) -> BenchExport:
    """Export benchmark `bench` (a folder or a shipped name) in `fmt` to the folder `out`;
    `task` and `frames` (a frame spec replacing the protocol's) are the lmms-eval task's."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
    if not has_extra("tables"):
        raise MissingExtra(
            f"export-bench needs the tables extra (pyarrow, datasets): {install_line('tables')}"
        )
    benchmark = load_benchmark(str(bench))
    if fmt == "hf":
        return export_hf(benchmark, out, with_media=with_media)
    if fmt == "lmms-eval":
        return export_lmms_eval(benchmark, out, with_media=with_media, task=task, frames=frames)
    raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
