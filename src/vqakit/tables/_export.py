"""`vqakit export-bench`: one entry for the benchmark exports."""

from __future__ import annotations

from pathlib import Path

from vqakit.benchmarks import load_benchmark
from vqakit.extras import MissingExtra, has_extra, install_line
from vqakit.files import writing_folder
from vqakit.tables._export_hf import BenchExport, check_split, export_hf
from vqakit.tables._export_lmms import export_lmms_eval
from vqakit.tables._lmms_task import TASK_FILE

EXPORT_FORMATS = ("hf", "lmms-eval")
WRITER = "export-bench"  # the command, as the folder's marker records it


def _exported_before_markers(out: Path) -> bool:
    """An export made before folders carried a marker: its mapping (hf) or task settings."""
    return (out / "vqakit" / "mapping.yaml").is_file() or (out / TASK_FILE).is_file()


def export_benchmark(
    bench: str | Path,
    fmt: str,
    out: str | Path,
    *,
    with_media: bool = False,
    task: str | None = None,
    frames: str | None = None,
    split: str | None = None,
) -> BenchExport:
    """Export benchmark `bench` (a folder or a shipped name) in `fmt` to the folder `out`;
    `task` and `frames` (a frame spec replacing the protocol's) are the lmms-eval task's, `split`
    the Hugging Face dataset's (default: the split the card names, else `test`). `out`
    must be new, empty or an earlier export, outside the benchmark (`OutFolderRefused`); files
    there that no export wrote are kept, and the folder's marker lists the export's."""
    if fmt not in EXPORT_FORMATS:
        raise ValueError(f"unknown export format {fmt!r}; known: {', '.join(EXPORT_FORMATS)}")
    if not has_extra("tables"):
        raise MissingExtra(
            f"export-bench needs the tables extra (pyarrow, datasets): {install_line('tables')}"
        )
    benchmark = load_benchmark(str(bench))
    if fmt == "hf":
        check_split(split or benchmark.card.split or "test")
    legacy = _exported_before_markers
    with writing_folder(
        out, WRITER, inputs=[benchmark.root], legacy=legacy, kind="export", list_files=True
    ) as folder:
        if fmt == "hf":
            return export_hf(benchmark, folder, with_media=with_media, split=split)
        return export_lmms_eval(benchmark, folder, with_media=with_media, task=task, frames=frames)
