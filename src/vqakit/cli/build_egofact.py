"""`vqakit build egofact`: an EgoFact-style benchmark from egocentric videos, event annotations and
how-to passages."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import concurrency_option, engine_options, set_aside_journal, set_aside_option
from vqakit.cli._progress import progress, stage_printer


@click.command()
@click.option("--videos", required=True, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--events",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL: {"video", "time_s", "text", "kind": "event"|"sound"} per annotation.',
)
@click.option(
    "--passages",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help='JSONL: {"id", "text", "title"?, "source"?} per how-to passage.',
)
@click.option(
    "--llm", "llm_spec", required=True, help="Text model for every text step (see `vqakit models`)."
)
@click.option("--vlm", "vlm_spec", help="Vision model that captions the screenshots (step 1).")
@click.option("--text-embedder", default="minilm", show_default=True)
@click.option("--image-embedder", help="clip:<folder>: clip similarity from screenshots in step 6.")
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", default="egofact-build", show_default=True, help="Benchmark name in the card.")
@click.option("--window", "window_s", type=click.FloatRange(min=1), default=30.0, show_default=True)
@click.option(
    "--keep-ratio",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.2,
    show_default=True,
    help="Clusters per window in the selection step.",
)
@click.option("--min-events", type=click.IntRange(0), default=2, show_default=True)
@click.option("--min-quality", type=click.FloatRange(0, 10), default=7.0, show_default=True)
@click.option("--passage-threshold", type=click.FloatRange(-1, 1), default=0.5, show_default=True)
@concurrency_option
@engine_options
@set_aside_option
@click.option("--seed", type=int, default=0, show_default=True)
def egofact(
    videos: Path,
    events: Path,
    passages: Path,
    llm_spec: str,
    vlm_spec: str | None,
    text_embedder: str,
    image_embedder: str | None,
    out: Path,
    name: str,
    window_s: float,
    keep_ratio: float,
    min_events: int,
    min_quality: float,
    passage_threshold: float,
    concurrency: int,
    engine: str,
    ray_address: str | None,
    seed: int,
    set_aside_bad_lines: bool,
) -> None:
    """Build an EgoFact-style benchmark.

    EgoFact-style multi-hop questions from egocentric videos, event annotations and how-to
    passages (steps 1-9). Rerunning the same command reuses every model step already done."""
    from vqakit.systems.egofact.builder import EgoFactBuildConfig, InputError, build_egofact_from_specs

    config = EgoFactBuildConfig(
        window_s=window_s,
        keep_ratio=keep_ratio,
        min_events=min_events,
        min_quality=min_quality,
        passage_threshold=passage_threshold,
        seed=seed,
        name=name,
    )
    if set_aside_bad_lines:
        set_aside_journal(out, "build egofact")
    try:
        with progress() as update:
            outcome = build_egofact_from_specs(
                videos,
                events,
                passages,
                out,
                llm=llm_spec,
                vlm=vlm_spec,
                text_embedder=text_embedder,
                image_embedder=image_embedder,
                config=config,
                concurrency=concurrency,
                engine=engine,
                ray_address=ray_address,
                on_stage=stage_printer(18),
                on_step=lambda done, failed: update(done, None, failed, "model steps"),
            )
    except InputError as error:
        raise click.ClickException(str(error)) from None
    click.echo(
        f"{outcome.samples} questions, {outcome.clips} clips, {outcome.passages} passages -> "
        f"{outcome.folder} ({outcome.reused_calls} model steps reused); "
        f"stage report: {outcome.folder / 'build/report.md'}"
    )
    for note in outcome.notes:
        click.echo(f"note: {note}")
