"""Results of run folders as tables: CSV, Markdown or LaTeX (`vqakit export`, `vqakit table`),
with the headline numbers as `vqakit.scoring.headline` defines them."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from vqakit.files import did_you_mean
from vqakit.report._escape import latex_cell, markdown_cell
from vqakit.report._human_rows import human_note, human_rows
from vqakit.runs import RunFolder
from vqakit.scoring import headline_of, intervals_note

COLUMNS = (
    "run", "method", "model", "measure", "group", "key", "n", "value", "ci95_low", "ci95_high", "interval",
    "clusters", "errors",
)  # fmt: skip
FORMATS = ("csv", "markdown", "latex")
KINDS = (("groups", "MCQ accuracy"), ("open_ended_groups", "open-ended accuracy"))


def _row(
    head: dict[str, Any], measure: str, group: str, key: str, summary: dict[str, Any], unit: str
) -> dict:
    """One row of `result_rows`; `summary` has n, the value (`accuracy` or `value`), ci95 and
    the kind of interval (`interval`, with the `clusters` it was drawn over where clustered)."""
    low, high = summary.get("ci95") or (None, None)
    value = summary.get("value", summary.get("accuracy"))
    return {**head, "measure": measure, "group": group, "key": key, "n": summary.get("n", 0), "value": value,
            "ci95_low": low, "ci95_high": high, "interval": summary.get("interval") or "",
            "clusters": summary.get("clusters") or "", "unit": unit}  # fmt: skip


def result_rows(folders: list[str | Path]) -> list[dict[str, Any]]:
    """One row per run and number: its headline numbers (`scoring.headline`: MCQ accuracy,
    open-ended accuracy, judge scores), overall where it is defined, then every group key of
    each accuracy. `measure` names the number; `value` is a share (accuracies) or a score;
    `interval` the kind of its 95% interval (`scoring._intervals`: e.g. `cluster bootstrap`)
    and `clusters` the videos it was clustered by, where questions share videos."""
    rows = []
    for folder in folders:
        run = RunFolder(folder)
        results, config = run.results, run.config
        head = {
            "run": str(run.path),
            "method": config.get("method"),
            "model": config.get("model") or "",
            "errors": (results.get("errors") or {}).get("n", 0),
        }
        rows += [_row(head, e["label"], "", "", e, e["unit"]) for e in headline_of(results)]
        overall = results.get("overall")
        if overall and overall.get("n"):
            rows.append(_row(head, "overall accuracy", "", "", overall, "accuracy"))
        for field, measure in KINDS:
            for group, buckets in (results.get(field) or {}).items():
                rows += [
                    _row(head, measure, group, key, summary, "accuracy") for key, summary in buckets.items()
                ]
    return rows


def _text(value: Any, percent: bool, unit: str = "accuracy") -> str:
    if isinstance(value, tuple):  # (value, low, high) of `comparison_rows(..., intervals=True)`
        if value[0] is None:
            return ""
        low, high = (_text(bound, percent, unit) for bound in value[1:])
        return (
            f"{_text(value[0], percent, unit)} [{low}, {high}]"
            if low and high
            else _text(value[0], percent, unit)
        )
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if percent and isinstance(value, float):
        return f"{100 * value:.1f}" if unit == "accuracy" else f"{value:.2f}"
    return str(value)


def format_rows(rows: list[dict[str, Any]], fmt: str) -> str:
    """The rows of `result_rows` as CSV (raw numbers), Markdown or LaTeX (accuracies as
    percentages, scores with two decimals)."""
    columns = list(COLUMNS)
    percent = [column in ("value", "ci95_low", "ci95_high") for column in columns]
    units = [row.get("unit", "accuracy") for row in rows]
    return _format(columns, [[row.get(c) for c in columns] for row in rows], fmt, percent, units)


def _format(
    columns: list[str], rows: list[list[Any]], fmt: str, percent: list[bool], units: list[str] | None = None
) -> str:
    """Every table's one writer: header and cells escaped for `fmt` (`_escape`), CSV by the csv
    module. Cells go by position, so two columns may bear one name (a key called `overall`)."""
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows([["" if cell is None else cell for cell in row] for row in rows])
        return buffer.getvalue()
    units = units or ["accuracy"] * len(rows)
    cells = [
        [_text(cell, shown, unit) for cell, shown in zip(row, percent, strict=True)]
        for row, unit in zip(rows, units, strict=True)
    ]
    if fmt == "markdown":
        lines = ["| " + " | ".join(markdown_cell(c) for c in columns) + " |", "|" + "---|" * len(columns)]
        lines += ["| " + " | ".join(markdown_cell(cell) for cell in row) + " |" for row in cells]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        numeric = [shown or column in ("n", "errors") for column, shown in zip(columns, percent, strict=True)]
        lines = [
            "\\begin{tabular}{" + "".join("r" if right else "l" for right in numeric) + "}",
            "\\hline",
            " & ".join(latex_cell(c) for c in columns) + " \\\\",
            "\\hline",
        ]
        lines += [" & ".join(latex_cell(cell) for cell in row) + " \\\\" for row in cells]
        lines += ["\\hline", "\\end{tabular}"]
        return "\n".join(lines) + "\n"
    raise ValueError(f"unknown table format {fmt!r}; use {', '.join(FORMATS)}")


class TableKeyError(ValueError):
    """A breakdown or a key the runs do not have (a mistake in the command): says which they have."""


def comparison_rows(
    folders: list[str | Path],
    by: str,
    first: list[str] | None = None,
    *,
    each_person: bool = False,
    intervals: bool = False,
) -> tuple[list[str], list[list[Any]]]:
    """Several runs as one table, like a paper's: a row per run (named by its method and model),
    a column per key of group `by` (the keys `first` in that order, then the others in the order
    they first appear), then the accuracy those keys break down. Each block is one kind of
    sample: MCQ accuracy, then open-ended accuracy where runs break that down too. The last
    column is `overall` when every run scored one kind only (overall is defined), else it is
    named by its kind. Cells are accuracies (None where a run has no such key), or with
    `intervals` (accuracy, ci95 low, ci95 high) triples (people's rows keep plain accuracies:
    a mean over participants has no such interval). Runs of people's
    answers (`vqakit studio`) come last as "Human" rows (`human_rows`, ranked by the first
    block's accuracy). A key of `first` that no run has, or a group no run has, is a ValueError
    naming what there is."""
    runs = [RunFolder(folder) for folder in folders]
    blocks = []
    for field, label in KINDS:
        found: list[str] = []
        for run in runs:
            for key in (run.results.get(field) or {}).get(by, {}):
                if key not in found:
                    found.append(key)
        if found:
            blocks.append((field, label, found))
    if not blocks:
        groups = _groups(runs)
        raise TableKeyError(
            f"--by {by!r}: none of the runs breaks its results down by it; {did_you_mean(by, groups)}"
            f"the runs have: {', '.join(groups) or 'no breakdown at all'}"
        )
    every = [key for _, _, found in blocks for key in found]
    unknown = [key for key in first or [] if key not in every]
    if unknown:
        raise TableKeyError(
            f"--columns: no run has {by} key {unknown[0]!r}; {did_you_mean(unknown[0], every)}"
            f"the keys are: {', '.join(dict.fromkeys(every))}"
        )
    defined = all(run.results.get("overall") is not None for run in runs)
    names: list[str] = ["run"]
    columns: list[tuple[str, str, list[str]]] = []  # (field, summary key, keys) per block
    for field, label, found in blocks:
        keys = [
            *(key for key in first or [] if key in found),
            *(key for key in found if key not in (first or [])),
        ]
        kind = "MCQ" if field == "groups" else "open-ended"
        names += [key if len(blocks) == 1 else f"{key} · {kind}" for key in keys]
        names.append("overall" if len(blocks) == 1 and defined else label)
        columns.append((field, "mcq" if field == "groups" else "open_ended", keys))

    def cells(run: RunFolder, with_intervals: bool = False) -> list[Any]:
        row: list[Any] = []
        for field, summary_key, keys in columns:
            buckets = (run.results.get(field) or {}).get(by, {})
            summaries = [buckets.get(key) or {} for key in keys] + [run.results.get(summary_key) or {}]
            row += [
                (s.get("accuracy"), *(s.get("ci95") or (None, None))) if with_intervals else s.get("accuracy")
                for s in summaries
            ]
        return row

    models = [run for run in runs if run.participant is None]
    people = [run for run in runs if run.participant is not None]
    rows = [[label, *cells(run, intervals)] for label, run in zip(_run_labels(models), models, strict=True)]
    rank_by = len(columns[0][2])  # the first block's accuracy column
    rows += human_rows(people, cells, each=each_person, rank_by=rank_by)
    return names, rows


def comparison_note(names: list[str], rows: list[list[Any]], ranked_by: str | None = None) -> str | None:
    """What a reader of a table of runs must be told, or None: where Human (best) sits below
    Human (mean) in a column, and why (it is ranked by `ranked_by`, the headline; default: the
    first block's accuracy, as `comparison_rows` ranks it)."""
    if ranked_by is None:
        labels = {"overall", *(label for _, label in KINDS)}
        ranked_by = next((name for name in names if name in labels), "overall")
    return human_note(names, rows, ranked_by)


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
    """A table of labels and accuracies as CSV (raw numbers), Markdown or LaTeX (percentages).
    Cells that are (accuracy, low, high) triples show `61.1 [44.9, 75.2]`; in CSV each is three
    columns (`KEY`, `KEY ci95_low`, `KEY ci95_high`)."""
    if fmt == "csv" and any(isinstance(cell, tuple) for row in rows for cell in row):
        wide = [columns[0]] + [f"{c}{part}" for c in columns[1:] for part in ("", " ci95_low", " ci95_high")]
        triples = [
            [cell if isinstance(cell, tuple) else (cell, None, None) for cell in row[1:]] for row in rows
        ]
        rows = [
            [row[0], *(part for cell in cells for part in cell)]
            for row, cells in zip(rows, triples, strict=True)
        ]
        columns = wide
    return _format(columns, rows, fmt, percent=[False] + [True] * (len(columns) - 1))


def interval_note(folders: list[str | Path]) -> str:
    """What the intervals of these runs' results account for, in one sentence (under a table)."""
    return intervals_note([RunFolder(folder).results for folder in folders])


def _groups(runs: list[RunFolder]) -> list[str]:
    return list(dict.fromkeys(g for run in runs for field, _ in KINDS for g in run.results.get(field) or {}))


def run_groups(folders: list[str | Path]) -> list[str]:
    """The breakdowns (`--by` groups) the runs' results hold, in the order met."""
    return _groups([RunFolder(folder) for folder in folders])
