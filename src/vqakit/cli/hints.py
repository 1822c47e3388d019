"""`vqakit hints`: write a sample's hinted frames for a person to check."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("video", required=False)
@click.option("--bench", required=True, help="Benchmark folder or name holding the sample.")
@click.option("--sample", "sample_id", required=True, help="Sample id whose object tracks give the marks.")
@click.option(
    "--style",
    default="circle+classes+temporal",
    show_default=True,
    help="box, circle, contour, classes, text (boxes as text lines, in pixels of the frame sent) or "
    "text1000 (normalised 0-1000 [ymin, xmin, ymax, xmax]), and temporal, combined with +.",
)
@click.option(
    "--frames", "frames_spec", default="uniform:16", show_default=True, help="Frame spec (and budget)."
)
@click.option("--short-side", type=int, default=448, show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
def hints(
    video: str | None, bench: str, sample_id: str, style: str, frames_spec: str, short_side: int, out: Path
) -> None:
    """Write a sample's hinted frames for checking.

    Write a sample's hinted frames (as the hints method sends them) so a person can check them.

    VIDEO defaults to the sample's first video.
    """
    from vqakit.benchmarks import load_benchmark
    from vqakit.systems.minerva_ego.hints import write_hinted_frames

    try:
        count = write_hinted_frames(
            load_benchmark(bench),
            sample_id,
            out,
            video=video,
            style=style,
            frames=frames_spec,
            short_side=short_side,
        )
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"wrote {count} hinted frames to {out}")
