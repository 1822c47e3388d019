"""`vqakit build movierecapsqa`: MovieRecapsQA-style questions from recap videos and their
transcripts, in the release's four-table shape and as a benchmark folder."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import concurrency_option, engine_options, set_aside_journal, set_aside_option
from vqakit.cli._progress import progress, stage_printer

_FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


@click.command()
@click.option(
    "--manifest",
    type=_FILE,
    help="CSV or JSONL of recaps: video_id, movie_name, recap, recap_subtitles[, movie, movie_subtitles]"
    "[, imdb_url, subtitle_url]; paths relative to the manifest.",
)
@click.option("--recap", type=_FILE, help="One recap video (instead of --manifest).")
@click.option("--transcript", type=_FILE, help="With --recap: its transcript, SRT or WebVTT.")
@click.option("--video-id", help="With --recap: its id (default: the file name).")
@click.option("--movie-name", help="With --recap: the movie's name (default: the id).")
@click.option("--movie", type=_FILE, help="With --recap: the movie, to align the recap to.")
@click.option("--movie-subtitles", type=_FILE, help="With --movie: the movie's SRT or WebVTT subtitles.")
@click.option(
    "--llm", "llm_spec", required=True, help="Model that writes facts and questions, simplifies and labels."
)
@click.option(
    "--vlm", "vlm_spec", help="Vision model that describes each segment for the labels (default: none)."
)
@click.option(
    "--embedder",
    help="Image embedder for alignment and shot merging, clip:<folder or hub id>; needed with movies.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default="movierecapsqa-build", show_default=True, help="Benchmark name in the card.")
@click.option("--min-segment-s", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True)
@click.option(
    "--max-segment-s", type=click.FloatRange(min=0, min_open=True), default=150.0, show_default=True
)
@click.option("--detector", type=click.Choice(["content", "adaptive"]), default="content", show_default=True)
@click.option("--threshold", type=float, help="Shot detector threshold (default: PySceneDetect's).")
@click.option("--questions-per-segment", type=click.IntRange(1), default=6, show_default=True)
@click.option("--description-frames", type=click.IntRange(1), default=4, show_default=True)
@concurrency_option
@engine_options
@set_aside_option
def movierecapsqa(
    manifest: Path | None,
    recap: Path | None,
    transcript: Path | None,
    video_id: str | None,
    movie_name: str | None,
    movie: Path | None,
    movie_subtitles: Path | None,
    llm_spec: str,
    vlm_spec: str | None,
    embedder: str | None,
    out: Path,
    name: str,
    min_segment_s: float,
    max_segment_s: float,
    detector: str,
    threshold: float | None,
    questions_per_segment: int,
    description_frames: int,
    concurrency: int,
    engine: str,
    ray_address: str | None,
    set_aside_bad_lines: bool,
) -> None:
    """Build a MovieRecapsQA-style benchmark.

    MovieRecapsQA-style open-ended questions from recap videos: scene segments, alignment to
    the movie, atomic facts, questions, simplification and labels. Writes OUT/tables/ (the
    release's four tables and labels.json) and a benchmark folder at OUT. Rerunning the same
    command reuses every model step already done."""
    from vqakit.systems.movierecapsqa.builder import (
        InputError,
        RecapsBuildConfig,
        build_movierecapsqa_from_specs,
        read_manifest,
        single_recap,
    )

    single = (recap, transcript, video_id, movie_name, movie, movie_subtitles)
    if manifest is not None and any(value is not None for value in single):
        raise click.UsageError(
            "--recap, --transcript, --video-id, --movie-name, --movie and --movie-subtitles "
            "go without --manifest"
        )
    if (manifest is None) == (recap is None):
        raise click.UsageError("give --manifest, or --recap with --transcript")
    if recap is not None and transcript is None:
        raise click.UsageError("--recap needs --transcript")
    try:
        config = RecapsBuildConfig(
            min_segment_s=min_segment_s,
            max_segment_s=max_segment_s,
            detector=detector,
            threshold=threshold,
            questions_per_segment=questions_per_segment,
            description_frames=description_frames,
            name=name,
        )
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    try:
        recaps = (
            read_manifest(manifest)
            if manifest is not None
            else [
                single_recap(
                    recap,
                    transcript,
                    video_id=video_id,
                    movie_name=movie_name,
                    movie=movie,
                    movie_subtitles=movie_subtitles,
                )
            ]  # type: ignore[arg-type]
        )
        if set_aside_bad_lines:
            set_aside_journal(out, "build movierecapsqa")
        with progress() as update:
            outcome = build_movierecapsqa_from_specs(
                recaps,
                out,
                llm=llm_spec,
                vlm=vlm_spec,
                embedder=embedder,
                config=config,
                concurrency=concurrency,
                engine=engine,
                ray_address=ray_address,
                on_stage=stage_printer(20),
                on_step=lambda done, failed: update(done, None, failed, "model steps"),
            )
    except InputError as error:
        raise click.ClickException(str(error)) from None
    click.echo(
        f"{outcome.questions} questions, {outcome.facts} facts, {outcome.segments} segments of "
        f"{outcome.recaps} recaps -> {outcome.folder} ({outcome.reused_calls} model steps reused)"
    )
    click.echo(f"tables: {outcome.folder / 'tables'}; stage report: {outcome.folder / 'build/report.md'}")
    for note in outcome.notes:
        click.echo(f"note: {note}")
