"""`vqakit runs` and `vqakit export`: the runs in a folder, and their results as tables."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import set_aside_option


def _checked(folders: tuple[Path, ...], set_aside_bad_lines: bool) -> None:
    """Each run's logs read whole, or set aside on request (`runner.checked_runs`)."""
    from vqakit.runner import checked_runs

    checked_runs(
        list(folders), set_aside_bad_lines=set_aside_bad_lines, on_note=lambda n: click.echo(n, err=True)
    )


@click.command()
@click.argument("folder", required=False, default="runs", type=click.Path(file_okay=False, path_type=Path))
def runs(folder: Path) -> None:
    """List the run folders, newest first.

    List the run folders under FOLDER (default runs/), newest first: when, method, model,
    frames sent, errors, the headline numbers (MCQ and open-ended accuracy, judge scores: see
    `vqakit eval`) and the folder."""
    from vqakit.runs import list_runs
    from vqakit.scoring import headline_of, headline_short

    found = list_runs(folder)
    if not found:
        click.echo(f"no run folders under {folder}")
        return
    rows = [
        [
            f"{run.updated:%Y-%m-%d %H:%M}",
            run.method,
            run.model or "-",
            run.frames or "-",
            str(run.errors),
            " · ".join(headline_short(entry) for entry in headline_of(run.results)) or "n/a",
            str(run.folder),
        ]
        for run in found
    ]
    header = ["updated", "method", "model", "frames", "errors", "headline (n)", "run"]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [
            cell.rjust(width) if i == 4 else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row[:-1], widths, strict=True))
        ]
        click.echo("  ".join(cells) + "  " + row[-1])


TABLE_FORMATS = ("csv", "markdown", "latex")


class _TableOrSubmission(click.Choice):
    """The table formats, then the submission formats benchmark systems register (looked up
    only when the option is parsed or its help shown)."""

    def __init__(self) -> None:
        super().__init__(TABLE_FORMATS)
        self._all: tuple[str, ...] | None = None

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        if self._all is None:
            from vqakit.report import submission_formats

            self._all = (*TABLE_FORMATS, *submission_formats())
        return self._all

    @choices.setter
    def choices(self, value: tuple[str, ...]) -> None:
        self._all = None


def _submission(folder: Path, fmt: str, out: Path | None) -> None:
    from vqakit.report import write_submission

    done = write_submission(folder, fmt, out)
    if done.without_answer:
        shown = ", ".join(done.without_answer[:10]) + (" ..." if len(done.without_answer) > 10 else "")
        click.echo(
            f"{len(done.without_answer)} question(s) left out, no option read from the reply: {shown}",
            err=True,
        )
    click.echo(f"wrote {done.written} answers -> {done.path}")


@click.command()
@click.argument(
    "folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option(
    "--format",
    "fmt",
    type=_TableOrSubmission(),
    default="markdown",
    show_default=True,
    help="A results table (csv, markdown, latex), or the submission file of a benchmark whose answers "
    "are hidden (one run).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the table here (default: print); a submission goes beside the run by default.",
)
@set_aside_option
def export(folders: tuple[Path, ...], fmt: str, out: Path | None, set_aside_bad_lines: bool) -> None:
    """Write runs' results as one table, or a submission.

    Write the results of run FOLDERS as one table: a row per run and number (the headline
    numbers, overall where defined, each group key of each accuracy), named in `measure`, with
    n, the value, its 95% interval, the kind of interval (`interval`: e.g. cluster bootstrap)
    and the videos it was clustered by (`clusters`, where questions share videos), and the
    run's errors. Cells are escaped for their format (LaTeX specials, Markdown pipes and HTML;
    CSV quoted by the csv module). With a submission format, write one run's answers in the file
    its benchmark's server takes."""
    from vqakit.report import format_rows, result_rows
    from vqakit.runs import RunFolderError

    _checked(folders, set_aside_bad_lines)
    if fmt not in TABLE_FORMATS:
        if len(folders) != 1:
            raise click.UsageError(f"--format {fmt} writes one run's answers: give one run folder")
        try:
            _submission(folders[0], fmt, out)
        except (RunFolderError, ValueError) as error:
            raise click.ClickException(str(error)) from None
        return

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
    "--by",
    "group",
    help="The breakdown of the columns, e.g. hop_grounding or skills (vqakit's view: each key of the "
    "group, overall pooled last). Without it, the benchmark's own table where its card declares one.",
)
@click.option(
    "--format", "fmt", type=click.Choice(["markdown", "csv", "latex"]), default="markdown", show_default=True
)
@click.option(
    "--columns",
    metavar="KEY,KEY,...",
    help="With --by: these keys first, in this order (e.g. '1-hop local,2-hop local'); the others follow.",
)
@click.option(
    "--each-person",
    is_flag=True,
    help="Besides Human (mean) and Human (best), a row per participant's run (vqakit studio).",
)
@click.option(
    "--ci",
    "intervals",
    is_flag=True,
    help="Each accuracy with its 95% interval ('61.1 [44.9, 75.2]'; in CSV, two more columns per "
    "key), clustered by video where questions share videos; a line under the table says which.",
)
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the table here (default: print)."
)
@set_aside_option
def table(
    folders: tuple[Path, ...],
    group: str | None,
    fmt: str,
    columns: str | None,
    each_person: bool,
    intervals: bool,
    out: Path | None,
    set_aside_bad_lines: bool,
) -> None:
    """Lay runs out as one table, as in a paper.

    Lay several runs out as one table, as in a paper: a row per run (its method and model);
    accuracies in percent. Without --by, the benchmark's own table where its card declares one
    (the presets: NExT-QA's Why ... Acc_D, All; Video-MME's durations without and with subtitles;
    MLVU's tasks and M-Avg; ...), with its column names, merges and headline, its source and
    notes under it. With --by GROUP, a column per key of that breakdown, overall (MCQ accuracy)
    last. Runs of people's answers (vqakit studio) make a "Human" row, or "Human (mean)" and
    "Human (best)" rows for several participants (the best is one participant's whole row,
    ranked by the headline: a note says where it falls below the mean in a column). With --ci,
    each accuracy with its 95% interval, and a note saying which interval it is. Cells, column
    names and the notes under a Markdown table are escaped for the format."""
    from vqakit.report import (
        NoOfficialTable,
        TableKeyError,
        comparison_note,
        comparison_rows,
        format_table,
        interval_note,
        markdown_cell,
        official_rows,
        run_groups,
    )
    from vqakit.runs import RunFolderError

    _checked(folders, set_aside_bad_lines)
    notes: list[str] = []
    try:
        if group is None:
            if columns:
                raise click.UsageError("--columns orders the keys of --by GROUP: give --by too")
            try:
                names, rows, definition = official_rows(
                    list(folders), each_person=each_person, intervals=intervals
                )
            except NoOfficialTable as error:
                groups = run_groups(list(folders))
                have = f": the runs have {', '.join(groups)}" if groups else ""
                raise click.UsageError(f"{error}; or give --by GROUP{have}") from None
            notes = [f"Columns as in {definition['source']}; headline: {definition['headline']}."]
            notes += list(definition.get("notes") or [])
            human = comparison_note(names, rows, ranked_by=definition["headline"])
        else:
            first = [key.strip() for key in columns.split(",") if key.strip()] if columns else []
            names, rows = comparison_rows(
                list(folders), group, first=first, each_person=each_person, intervals=intervals
            )
            human = comparison_note(names, rows)
        if intervals:
            notes.append(interval_note(list(folders)))
    except TableKeyError as error:
        raise click.UsageError(str(error)) from None
    except (RunFolderError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    notes += [f"note: {human}"] if human else []
    text = format_table(names, rows, fmt)
    if notes and fmt == "markdown":  # a card's notes are text, shown as written
        text += "\n" + "".join(f"{markdown_cell(note)}\n" for note in notes)
    if out is None:
        click.echo(text, nl=not text.endswith("\n"))
    else:
        out.write_text(text, encoding="utf-8")
        click.echo(f"-> {out}")
    if notes and fmt != "markdown":
        for note in notes:
            click.echo(note, err=True)
