"""`vqakit steps`: read a step-annotation file and print its video info as JSONL."""

from __future__ import annotations

from pathlib import Path

import click

# The same names as vqakit.systems.instructionbench.importers.FORMATS (kept here so that
# `--help` does not import the library).
FORMAT_CHOICES = ("auto", "youcook2", "hirest", "goalstep", "keystep", "table")


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMAT_CHOICES),
    default="auto",
    show_default=True,
    help="The annotation format; auto tells it from the file's content.",
)
@click.option("--trim", is_flag=True, help="Cut Goal-Step and keystep videos into clips by the paper's rule.")
@click.option(
    "--label-map",
    type=click.Path(dir_okay=False, path_type=Path),
    help="YouCook2 recipe names: a `code,name` CSV such as label_foodtype.csv.",
)
def steps(file: Path, format_: str, trim: bool, label_map: Path | None) -> None:
    """Read step annotations into one JSONL form.

    Print the videos of a YouCook2, HiREST, Ego4D Goal-Step, Ego-Exo4D keystep or table
    (CSV/JSONL: video_id, theme, start, end, text[, level, category, parent, id, duration])
    annotation file as JSONL, one video (or, with --trim, one clip) per line: video_id, theme,
    duration, start, end and nested steps, in seconds of the video. A summary and the problems
    met go to stderr."""
    from vqakit.builders import InputError
    from vqakit.systems.instructionbench.importers import list_steps

    try:
        listing = list_steps(file, format_, trim=trim, label_map=label_map)
    except InputError as error:
        raise click.ClickException(str(error)) from None
    for line in listing.jsonl():
        click.echo(line)
    for line in listing.summary():
        click.echo(line, err=True)
