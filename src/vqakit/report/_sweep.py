"""`sweep.html` (accuracy, with 95% intervals, against the swept value; one point per run) and
the ranking page of `vqakit rank`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.report._render import write_page


def write_sweep_report(folder: str | Path, parameter: str, rows: list[dict[str, Any]]) -> Path:
    """`rows`: {value, folder, n, accuracy, ci95} per run, in sweep order."""
    shown = [{**row, "run": Path(row["folder"]).name} for row in rows]
    return write_page(
        Path(folder) / "sweep.html", "sweep.html.j2", title="sweep", parameter=parameter, rows=shown
    )


def write_ranking_report(path: str | Path, ranking: dict[str, Any]) -> Path:
    """`vqakit rank` as a page: each judge's ranking of the runs and the judges' agreement."""
    return write_page(path, "ranking.html.j2", title="ranking", ranking=ranking)
