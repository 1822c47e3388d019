"""Results of run folders as tables: CSV, Markdown or LaTeX (`vqakit export`)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from vqakit.report._human_rows import human_rows
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
    """The rows of `result_rows` as CSV (raw numbers), Markdown or LaTeX (accuracies as percentages)."""
    return _format(rows, list(COLUMNS), fmt, percent={"accuracy", "ci95_low", "ci95_high"})


def _format(rows: list[dict[str, Any]], columns: list[str], fmt: str, percent: set[str]) -> str:
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue()
    cells = [[_text(row[c], c in percent) for c in columns] for row in rows]
    if fmt == "markdown":
        lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    if fmt == "latex":

        def escape(text: str) -> str:
            for char in "\\&%$#_{}":
                text = text.replace(char, "\\" + char)
            return text

        numeric = sum(1 for c in columns if c in percent or c in ("n", "errors"))
        lines = [
            "\\begin{tabular}{" + "l" * (len(columns) - numeric) + "r" * numeric + "}",
            "\\hline",
            " & ".join(escape(c) for c in columns) + " \\\\",
            "\\hline",
        ]
        lines += [" & ".join(escape(cell) for cell in row) + " \\\\" for row in cells]
        lines += ["\\hline", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown table format {fmt!r}; use {', '.join(FORMATS)}")


def comparison_rows(
    folders: list[str | Path], by: str, first: list[str] | None = None, *, each_person: bool = False
) -> tuple[list[str], list[list[Any]]]:
    """Several runs as one table, like a paper's: a row per run (named by its method and model),
    a column per key of group `by` (the keys `first` in that order, then the others in the order
    they first appear), overall last; cells are accuracies (None where a run has no such key).
    Runs of people's answers (`vqakit studio`) come last as "Human" rows (`human_rows`).
    A key of `first` that no run has is a ValueError naming the keys there are."""
    runs = [RunFolder(folder) for folder in folders]
    found: list[str] = []
    for run in runs:
        for key in (run.results.get("groups") or {}).get(by, {}):
            if key not in found:
                found.append(key)
    unknown = [key for key in first or [] if key not in found]
    if unknown and found:
        raise ValueError(f"no run has {by} key {unknown[0]!r}; the keys are: {', '.join(found)}")
    keys = [*(first or []), *(key for key in found if key not in (first or []))] if found else []

    def cells(run: RunFolder) -> list[Any]:
        results = run.results
        buckets = (results.get("groups") or {}).get(by, {})
        overall = results.get("mcq") or results.get("overall") or {}
        return [*(buckets.get(key, {}).get("accuracy") for key in keys), overall.get("accuracy")]

    models = [run for run in runs if run.participant is None]
    rows = [[label, *cells(run)] for label, run in zip(_run_labels(models), models, strict=True)]
    rows += human_rows([run for run in runs if run.participant is not None], cells, each=each_person)
    return ["run", *keys, "overall"], rows


def _run_labels(runs: list[RunFolder]) -> list[str]:
    """Each run's method, with its model where the runs' models differ and its folder name where
    that still leaves two rows alike (a sweep)."""
    models = {str(run.config.get("model")) for run in runs}
    labels = [
        str(run.config.get("method"))
        + (f" · {run.config['model']}" if len(models) > 1 and run.config.get("model") else "")
        for run in runs
    ]
    return [
        f"{label} ({run.path.name})" if labels.count(label) > 1 else label
        for label, run in zip(labels, runs, strict=True)
    ]


def format_table(columns: list[str], rows: list[list[Any]], fmt: str) -> str:
    """A table of labels and accuracies as CSV (raw numbers), Markdown or LaTeX (percentages)."""
    return _format(
        [dict(zip(columns, row, strict=True)) for row in rows], columns, fmt, percent=set(columns[1:])
    )
