"""Runs laid out as their benchmark's own table (`vqakit table` without `--by`): the columns,
names, order and merges the card's `official` declares, computed into each run's results.json
(`official`) when it was scored.

Where the benchmark reports a protocol setting as separate blocks (Video-MME without and with
subtitles), each run fills the block of its setting (from its config.yaml), and runs of the same
method and model whose blocks do not overlap share one row, as the benchmark's table has them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vqakit.report._human_rows import human_rows
from vqakit.runs import RunFolder


class NoOfficialTable(ValueError):
    """A run whose results hold no benchmark table (its card declares none, or it was scored
    before vqakit computed one)."""


def _definition(results: dict[str, Any]) -> tuple:
    official = results["official"]
    setting = official.get("setting") or {}
    names = tuple((column.get("block"), column["name"]) for column in official["columns"])
    return official["source"], official["headline"], setting.get("key"), names


def _setting_label(run: RunFolder, setting: dict[str, Any] | None) -> str | None:
    """The label of the run's block: its protocol's value of the setting, as the card names it."""
    if not setting:
        return None
    value = (run.config.get("protocol") or {}).get(setting["key"])
    text = str(value).lower() if isinstance(value, bool) else str(value)
    return setting["labels"].get(text, f"{setting['key']} {text}")


def _columns(runs: list[RunFolder]) -> list[str]:
    """Every column name in table order: the first run's columns, then any `each` column (a
    skill, say) another run has, in the order met."""
    names: list[str] = []
    for run in runs:
        for column in run.results["official"]["columns"]:
            if column["name"] not in names:
                names.append(column["name"])
    return names


def official_rows(
    folders: list[str | Path], *, each_person: bool = False, intervals: bool = False
) -> tuple[list[str], list[list[Any]], dict[str, Any]]:
    """The runs as their benchmark's table: (column names, rows, the table's definition: source,
    headline, setting, notes). A row is the run's label (method, and model where the runs' models
    differ) and one accuracy per column (None where the run has no question there). People's
    runs (`vqakit studio`) make the Human rows, as in `comparison_rows`. With `intervals`, a
    model's cell is (accuracy, ci95 low, ci95 high) (people's rows keep plain accuracies).
    NoOfficialTable when a run's results hold no table; ValueError when the runs' benchmarks
    declare different tables."""
    runs = [RunFolder(folder) for folder in folders]
    for run in runs:
        if not run.results.get("official"):
            raise NoOfficialTable(
                f"{run.path}: its results hold no benchmark table (the benchmark's card declares none, "
                "or the run was scored before vqakit computed it: `vqakit report RUN` scores it again)"
            )
    definitions = {_definition(run.results) for run in runs}
    if len({definition[:3] for definition in definitions}) > 1:
        raise ValueError("the runs' benchmarks declare different tables: give --by GROUP to compare them")
    first = runs[0].results["official"]
    setting = first.get("setting")
    columns = _columns(runs)
    blocks = list(dict.fromkeys(setting["labels"].values())) if setting else [None]
    for run in runs:  # a setting value the card has no label for gets its own block
        label = _setting_label(run, setting)
        if label not in blocks:
            blocks.append(label)
    names = ["run"] + [name if block is None else f"{name} ({block})" for block in blocks for name in columns]

    def cells(run: RunFolder, with_intervals: bool = False) -> list[Any]:
        values = {
            column["name"]: (
                (column["accuracy"], *(column.get("ci95") or (None, None)))
                if with_intervals and column.get("accuracy") is not None
                else column.get("accuracy")
            )
            for column in run.results["official"]["columns"]
        }
        label = _setting_label(run, setting)
        return [values.get(name) if block == label else None for block in blocks for name in columns]

    models = [run for run in runs if run.participant is None]
    people = [run for run in runs if run.participant is not None]
    rows = _merged(models, lambda run: cells(run, intervals))
    headline = next(i for i, name in enumerate(columns) if name == first["headline"])
    rows += human_rows(people, cells, each=each_person, rank_by=headline)
    definition = {k: first.get(k) for k in ("source", "headline", "setting", "notes")}
    return names, rows, definition


def _label(run: RunFolder, models: set[str]) -> str:
    model = run.config.get("model")
    return str(run.config.get("method")) + (f" · {model}" if len(models) > 1 and model else "")


def _merged(runs: list[RunFolder], cells: Any) -> list[list[Any]]:
    """A row per run; runs with the same label whose filled cells do not overlap (one without
    subtitles, one with) share a row; rows still alike get their folder name."""
    models = {str(run.config.get("model")) for run in runs}
    rows: list[tuple[str, list[RunFolder], list[Any]]] = []
    for run in runs:
        label, values = _label(run, models), cells(run)
        mate = next(
            (
                row
                for row in rows
                if row[0] == label
                and not any(a is not None and b is not None for a, b in zip(row[2], values, strict=True))
            ),
            None,
        )
        if mate is None:
            rows.append((label, [run], values))
        else:
            mate[1].append(run)
            mate[2][:] = [a if a is not None else b for a, b in zip(mate[2], values, strict=True)]
    labels = [label for label, _, _ in rows]
    return [
        [label if labels.count(label) == 1 else f"{label} ({', '.join(r.path.name for r in runs)})", *values]
        for label, runs, values in rows
    ]
