"""`vqakit import movierecapsqa`: the MovieRecapsQA release tables and your media to a benchmark
folder."""

from __future__ import annotations

from pathlib import Path

import click

_MEDIA = click.Path(exists=True, path_type=Path)


@click.command()
@click.argument("tables_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--recaps",
    required=True,
    type=_MEDIA,
    help="Folder of <video_id>.<ext> recap videos, or a CSV with video_id,path columns.",
)
@click.option(
    "--movies",
    type=_MEDIA,
    help="Folder or video_id,path CSV of movies, named by recap video_id, IMDb id (tt...) or movie name.",
)
@click.option(
    "--subtitles",
    type=_MEDIA,
    help="Folder or video_id,path CSV of movie .srt/.vtt files, named like the movies.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--link-media",
    is_flag=True,
    help="Link the videos by their absolute paths instead of hard-linking or copying them "
    "(the card then says linked_media: true; the folder is not portable).",
)
def movierecapsqa(
    tables_dir: Path,
    recaps: Path,
    movies: Path | None,
    subtitles: Path | None,
    out: Path,
    link_media: bool,
) -> None:
    """Import a MovieRecapsQA release.

    MovieRecapsQA release tables (recaps, segments, questions, facts: .json lists or .jsonl)
    plus recap videos, movies and movie subtitles to a benchmark folder; run its settings with
    `--method movierecaps --method-arg setting=...`."""
    from vqakit.schema import BenchmarkError
    from vqakit.systems.movierecapsqa.importer import import_movierecapsqa

    try:
        report = import_movierecapsqa(tables_dir, recaps, movies, subtitles, out=out, link_media=link_media)
    except (ValueError, BenchmarkError) as error:
        raise click.ClickException(str(error)) from None
    for problem in report.problems:
        click.echo(f"skipped {problem}", err=True)
    for key, why in report.left_out.items():
        click.echo(f"left out {key}: {why}", err=True)
    by_lack: dict[str, list[str]] = {}
    for sample_id, lacks in report.lacking.items():
        for lack in lacks:
            by_lack.setdefault(lack, []).append(sample_id)
    for lack, ids in sorted(by_lack.items()):
        click.echo(f"lacks {lack}: {len(ids)} question(s): {', '.join(ids)}", err=True)
    found = ", ".join(f"{kind} {have}/{asked}" for kind, (have, asked) in report.found.items())
    click.echo(f"found for the recaps asked about: {found}")
    click.echo(
        f"wrote {report.written} samples to {out} ({len(report.lacking)} lacking something, "
        f"{len(report.left_out)} left out); check it with: vqakit validate {out}"
    )
