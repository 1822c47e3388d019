"""`vqakit import table`: any table of questions plus a folder of videos to a benchmark folder, by
a mapping file."""

from __future__ import annotations

from pathlib import Path

import click


def echo_import(report, out: Path) -> None:
    """What an import left out and what it wrote (shared by the presets' commands)."""
    for problem in report.problems:
        click.echo(f"skipped {problem}", err=True)
    for video, ids in sorted(report.missing_videos.items()):
        shown = ", ".join(ids[:10]) + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        click.echo(f"missing video {video} ({len(ids)} question(s): {shown})", err=True)
    for video, why in sorted(report.unreadable_videos.items()):
        click.echo(f"unreadable video {video}: {why}", err=True)
    if report.windows_cut:
        cut = len(report.windows_cut)
        click.echo(f"{cut} window(s) ended past their video and were cut at its end", err=True)
    if report.lacking_subtitles:
        click.echo(f"no subtitles for {len(report.lacking_subtitles)} question(s)", err=True)
    left_out = report.rows - report.written
    hidden = f", {report.hidden} with hidden answers (scored by submission)" if report.hidden else ""
    click.echo(
        f"wrote {report.written} of {report.rows} questions to {out} ({left_out} left out{hidden}); "
        f"check it with: vqakit validate {out}"
    )


@click.command()
@click.argument("table", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--map",
    "mapping",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Mapping YAML: id, question, options, answer, video, start, end, subtitles, groups, metadata.",
)
@click.option(
    "--videos",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder the mapping's video paths are relative to.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--split", help="The split to read from a folder holding several (test, validation, ...).")
@click.option(
    "--subtitles",
    "subtitles_dir",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder the mapping's subtitle paths are relative to (default: --videos).",
)
@click.option(
    "--name", help="The benchmark's name (default: the card's in the mapping, else the --out folder's)."
)
def table(
    table: Path,
    mapping: Path,
    videos: Path,
    out: Path,
    split: str | None,
    subtitles_dir: Path | None,
    name: str | None,
) -> None:
    """Import any table of questions with a mapping file.

    TABLE (Parquet, CSV, TSV, JSONL or JSON file; a `datasets` save_to_disk folder or a folder of
    Parquet shards) and your videos to a benchmark folder; rows that cannot be used are listed as
    FILE:ROW:COLUMN: problem, questions whose video is missing are listed; neither is fatal."""
    from vqakit.schema import BenchmarkError
    from vqakit.tables import import_table

    try:
        report = import_table(
            table, mapping, videos, out, split=split, subtitles_dir=subtitles_dir, name=name
        )
    except (ValueError, BenchmarkError) as error:
        raise click.ClickException(str(error)) from None
    echo_import(report, out)
