"""`vqakit align`: align a recap video to its movie (MovieRecapsQA's recap-to-movie alignment)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("recap", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("movie", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--image-embedder",
    required=True,
    help="Frame embedder, clip:<folder or hub id> (CLIP, SigLIP, MetaCLIP).",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for segments.json, matches.jsonl, alignment.json and alignment.png.",
)
@click.option("--video-id", help="video_id written in the segments (default: the recap's file name).")
@click.option(
    "--detector",
    type=click.Choice(["content", "adaptive"]),
    default="content",
    show_default=True,
    help="PySceneDetect shot detector for both videos.",
)
@click.option("--threshold", type=float, help="Detector threshold (default: PySceneDetect's, 27 or 3.0).")
@click.option(
    "--fps",
    type=click.FloatRange(min=0, min_open=True),
    default=2.0,
    show_default=True,
    help="Frames per second embedded in each shot's first and last seconds.",
)
@click.option(
    "--end-seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=3.0,
    show_default=True,
    help="How much of each shot's start and end describes it.",
)
@click.option(
    "--temperature",
    type=click.FloatRange(min=0, min_open=True),
    default=0.02,
    show_default=True,
    help="Softmax temperature over cosine similarities (about the gap between a true match and "
    "an ordinary shot of the same film).",
)
@click.option(
    "--min-margin",
    type=click.FloatRange(0, 1),
    default=0.2,
    show_default=True,
    help="Probability margin (best minus second) a match needs to anchor the alignment.",
)
@click.option(
    "--frame-side",
    type=click.IntRange(16),
    default=224,
    show_default=True,
    help="Short side of the frames before embedding.",
)
def align(
    recap: Path,
    movie: Path,
    image_embedder: str,
    out: Path,
    video_id: str | None,
    detector: str,
    threshold: float | None,
    fps: float,
    end_seconds: float,
    temperature: float,
    min_margin: float,
    frame_side: int,
) -> None:
    """Align a recap video to its movie.

    Align RECAP (a recap video) to MOVIE: which movie span each recap passage shows.

    Writes the aligned segments in the MovieRecapsQA release's `segments` shape (fact_ids
    empty) and a plot of recap time against movie time.
    """
    from vqakit.extras import require_extra
    from vqakit.systems.movierecapsqa.align import (
        AlignSettings,
        align_recap,
        check_alignment_out,
        write_alignment,
    )

    check_alignment_out(out, recap, movie)  # before any work: exit 2, nothing written
    require_extra("scenes", "vqakit align")
    require_extra("hf", "the clip: image embedder")
    settings = AlignSettings(
        detector=detector,
        threshold=threshold,
        fps=fps,
        end_s=end_seconds,
        temperature=temperature,
        min_margin=min_margin,
        short_side=frame_side,
    )
    alignment = align_recap(recap, movie, embedder_spec=image_embedder, video_id=video_id, settings=settings)
    paths = write_alignment(alignment, out)
    kept = sum(match.kept for match in alignment.matches)
    click.echo(
        f"{alignment.video_id}: {len(alignment.recap_shots)} recap shots, {len(alignment.movie_shots)} movie "
        f"shots; {kept} recap shots aligned in {len(alignment.segments)} segments"
    )
    for name, path in paths.items():
        click.echo(f"  {name}: {path}")
