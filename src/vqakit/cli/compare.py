"""`vqakit compare`: a paired comparison of two runs."""

from __future__ import annotations

import json
from pathlib import Path

import click

from vqakit.cli._options import set_aside_option


@click.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@set_aside_option
def compare(run_a: Path, run_b: Path, as_json: bool, set_aside_bad_lines: bool) -> None:
    """Compare two runs, paired, per group.

    Paired comparison of two runs over the same benchmark, per kind of sample and per group.

    Prints MCQ accuracy and open-ended accuracy (each apart, as `vqakit eval` defines them) of A
    and B, the difference B - A with a 95% paired bootstrap interval, and the McNemar p-value on
    the samples where exactly one run was right; both clustered by video where questions share a
    video (a paired bootstrap of whole videos, and the exact sign-flip McNemar test over videos:
    those rows are marked *), else per question (exact McNemar); the judge scores of both
    (means, not paired); then the
    rates of the diagnostics the benchmark's system registers (e.g. gold clip retrieved) in A
    and B, pooled and per key of the groups it registers (e.g. question family).
    """
    from vqakit.runner import compare_run_folders
    from vqakit.scoring import number_text

    try:
        result = compare_run_folders(
            run_a,
            run_b,
            set_aside_bad_lines=set_aside_bad_lines,
            on_note=lambda note: click.echo(note, err=True),
        )
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    click.echo(f"A = {run_a}\nB = {run_b}")
    click.echo(f"{'group':<34}{'n':>5}{'A':>8}{'B':>8}{'B-A':>8}{'95% CI':>18}{'McNemar p':>11}")
    rows = []
    for kind, label, groups in (
        ("mcq", "MCQ accuracy", "groups"),
        ("open_ended", "open-ended accuracy", "open_ended_groups"),
    ):
        if result.get(kind) is None:
            continue
        suffix = "" if result.get("overall") is not None else f" ({'MCQ' if kind == 'mcq' else 'open-ended'})"
        rows.append((label, result[kind]))
        rows += [
            (f"{group}: {key}{suffix}", summary)
            for group, buckets in result[groups].items()
            for key, summary in buckets.items()
        ]
    for label, row in rows:
        low, high = row["ci95"]
        click.echo(
            f"{label[:33]:<34}{row['n']:>5}{100 * row['accuracy_a']:>7.1f}%{100 * row['accuracy_b']:>7.1f}%"
            f"{100 * row['difference']:>+7.1f}%{f'{100 * low:+.1f} to {100 * high:+.1f}':>18}"
            f"{row['mcnemar_p']:>11.3f}{' *' if row.get('clusters') else ''}"
        )
    if any(row.get("clusters") for _, row in rows):
        click.echo(
            "* clustered by video (questions share videos): paired bootstrap of whole videos, "
            "sign-flip McNemar test over videos"
        )
    for entry in result.get("scores", {}).values():
        a, b = entry["a"], entry["b"]
        cells = ["n/a" if side is None else f"{number_text(side)} (n={side['n']})" for side in (a, b)]
        click.echo(f"{entry['label'][:33]:<34}{'':>5}{cells[0]:>14}{cells[1]:>14}  (means, not paired)")
    for row in result["diagnostics"].values():
        _diagnostic_line(row["label"], row)
    for group, buckets in result.get("diagnostics_by_group", {}).items():
        for key, rates in buckets.items():
            click.echo(f"{group}: {key}")
            for row in rates.values():
                _diagnostic_line("  " + row["label"], row)


def _diagnostic_line(label: str, row: dict) -> None:
    """A diagnostic's rate in A and B and the difference, in the columns of the accuracy rows."""
    click.echo(
        f"{label[:33]:<34}{row['n']:>5}{100 * row['rate_a']:>7.1f}%{100 * row['rate_b']:>7.1f}%"
        f"{100 * (row['rate_b'] - row['rate_a']):>+7.1f}%"
    )
