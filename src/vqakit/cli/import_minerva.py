"""`vqakit import minerva`: a Minerva-Ego / MINERVA release file to a benchmark folder."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("records", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--videos",
    required=True,
    type=click.Path(exists=True, path_type=Path),
    help="Folder of <video_id>.<ext> files, or a CSV with video_id,path columns.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--link-media",
    is_flag=True,
    help="Link the videos by their absolute paths instead of hard-linking or copying them "
    "(the card then says linked_media: true; the folder is not portable).",
)
def minerva(records: Path, videos: Path, out: Path, link_media: bool) -> None:
    """Import a Minerva-Ego or MINERVA release.

    Minerva-Ego / MINERVA release JSON (key, video_id, question, answer, answer_choice_0..4,
    answer_id, reasoning, question type[, split, category]) to a benchmark folder; the older
    four-decoy shape (answer_choice_0..3, answer inserted at answer_id) is read too."""
    from vqakit.schema import BenchmarkError
    from vqakit.systems.minerva_ego.importer import import_minerva

    try:
        report = import_minerva(records, videos, out, link_media=link_media)
    except (ValueError, BenchmarkError) as error:
        raise click.ClickException(str(error)) from None
    for problem in report.problems:
        click.echo(f"skipped {problem}", err=True)
    for video_id, keys in sorted(report.missing_videos.items()):
        click.echo(f"missing video {video_id} ({len(keys)} question(s): {', '.join(keys)})", err=True)
    if report.shapes:
        shapes = ", ".join(f"{count} in the {shape} shape" for shape, count in sorted(report.shapes.items()))
        click.echo(f"records read: {shapes}")
    click.echo(f"wrote {report.written} samples to {out}; check it with: vqakit validate {out}")
