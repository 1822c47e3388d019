"""Results of run folders as tables: CSV, Markdown or LaTeX (`vqakit export`)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from vqakit.runs import RunFolder

COLUMNS = ("run", "method", "model", "group", "key", "n", "accuracy", "ci95_low", "ci95_high", "errors")
FORMATS = ("csv", "markdown", "latex")


def _cells(summary: dict[str, Any]) -> tuple[Any, ...]:
    accuracy = summary.get("accuracy")
    low, high = summary.get("ci95") or (None, None)
    return (summary.get("n", 0), accuracy, low, high)


def result_rows(folders: list[str | Path]) -> list[dict[str, Any]]:
    """One row per run and result: overall, MCQ, judged open-ended, then every group key."""
    rows = []
    for folder in folders:
        run = RunFolder(folder)
        results, config = run.results, run.config
        head = {"run": str(run.path), "method": config.get("method"), "model": config.get("model") or ""}
        errors = (results.get("errors") or {}).get("n", 0)
        parts = [("overall", "", results.get("overall") or {})]
        parts += [(name, "", results[name]) for name in ("mcq", "open_ended") if results.get(name)]
        parts += [
            (group, key, summary)
            for group, buckets in (results.get("groups") or {}).items()
            for key, summary in buckets.items()
        ]
        for group, key, summary in parts:
            n, accuracy, low, high = _cells(summary)
            rows.append(
                {**head, "group": group, "key": key, "n": n, "accuracy": accuracy, "ci95_low": low,
                 "ci95_high": high, "errors": errors}
            )  # fmt: skip
    return rows


def _text(value: Any, percent: bool) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if percent and isinstance(value, float):
        return f"{100 * value:.1f}"
    return str(value)


def format_rows(rows: list[dict[str, Any]], fmt: str) -> str:
    """The rows as CSV (raw numbers), Markdown or LaTeX (accuracies as percentages)."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue()
    percent = {"accuracy", "ci95_low", "ci95_high"}
    cells = [[_text(row[c], c in percent) for c in COLUMNS] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    if fmt == "latex":

        def escape(text: str) -> str:
            for char in "\\&%$#_{}":
                text = text.replace(char, "\\" + char)
            return text

        lines = [
            "\\begin{tabular}{" + "l" * 5 + "r" * (len(COLUMNS) - 5) + "}",
            "\\hline",
            " & ".join(escape(c) for c in COLUMNS) + " \\\\",
            "\\hline",
        ]
        lines += [" & ".join(escape(cell) for cell in row) + " \\\\" for row in cells]
        lines += ["\\hline", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown table format {fmt!r}; use {', '.join(FORMATS)}")
