"""`vqakit runs` and `vqakit export`: the runs in a folder, and their results as tables."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("folder", required=False, default="runs", type=click.Path(file_okay=False, path_type=Path))
def runs(folder: Path) -> None:
    """List the run folders under FOLDER (default runs/), newest first, with their headline numbers."""
    from vqakit.runs import list_runs

    found = list_runs(folder)
    if not found:
        click.echo(f"no run folders under {folder}")
        return
    click.echo(f"{'run':<46}{'method':<16}{'MCQ':>8}{'n':>6}{'open':>8}{'n':>5}{'errors':>8}  updated")
    for run in found:
        mcq = "n/a" if run.accuracy is None else f"{100 * run.accuracy:.1f}%"
        open_ended = "-" if run.open_ended_accuracy is None else f"{100 * run.open_ended_accuracy:.1f}%"
        name = str(run.folder)
        click.echo(
            f"{name[-45:]:<46}{run.method[:15]:<16}{mcq:>8}{run.n:>6}{open_ended:>8}{run.open_ended_n:>5}"
            f"{run.errors:>8}  {run.updated:%Y-%m-%d %H:%M}"
        )


@click.command()
@click.argument(
    "folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option(
    "--format", "fmt", type=click.Choice(["csv", "markdown", "latex"]), default="markdown", show_default=True
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the table here (default: print)."
)
def export(folders: tuple[Path, ...], fmt: str, out: Path | None) -> None:
    """Write the results of run FOLDERS as one table: a row per run and result (overall, MCQ,
    open-ended, each group key) with n, accuracy, its 95% interval and the run's errors."""
    from vqakit.report import format_rows, result_rows
    from vqakit.runs import RunFolderError

    try:
        table = format_rows(result_rows(list(folders)), fmt)
    except RunFolderError as error:
        raise click.ClickException(str(error)) from None
    if out is None:
        click.echo(table, nl=False)
    else:
        out.write_text(table, encoding="utf-8")
        click.echo(f"-> {out}")


@click.command()
@click.argument(
    "folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option(
    "--by", "group", required=True, help="The breakdown of the columns, e.g. hop_grounding or skills."
)
@click.option(
    "--format", "fmt", type=click.Choice(["markdown", "csv", "latex"]), default="markdown", show_default=True
)
@click.option(
    "--columns",
    metavar="KEY,KEY,...",
    help="These keys first, in this order (e.g. '1-hop local,2-hop local'); the others follow.",
)
@click.option(
    "--each-person",
    is_flag=True,
    help="Besides Human (mean) and Human (best), a row per participant's run (vqakit studio).",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the table here (default: print)."
)
def table(
    folders: tuple[Path, ...], group: str, fmt: str, columns: str | None, each_person: bool, out: Path | None
) -> None:
    """Lay several runs out as one table, as in a paper: a row per run (its method and model), a
    column per key of the breakdown --by, overall (MCQ accuracy) last; accuracies in percent.
    Runs of people's answers (vqakit studio) make a "Human" row, or "Human (mean)" and "Human
    (best)" rows for several participants."""
    from vqakit.report import comparison_rows, format_table
    from vqakit.runs import RunFolderError

    try:
        first = [key.strip() for key in columns.split(",") if key.strip()] if columns else []
        names, rows = comparison_rows(list(folders), group, first=first, each_person=each_person)
    except (RunFolderError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    if len(names) == 2:
        raise click.ClickException(f"none of the runs breaks its results down by {group!r}")
    text = format_table(names, rows, fmt)
    if out is None:
        click.echo(text, nl=False)
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"-> {out}")
