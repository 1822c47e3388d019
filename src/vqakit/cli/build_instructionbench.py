"""`vqakit build instructionbench`: open-ended and five-option questions from step-annotated
instructional videos."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import concurrency_option, engine_options, set_aside_journal, set_aside_option
from vqakit.cli._progress import progress, stage_printer

FORMATS = ("auto", "youcook2", "hirest", "goalstep", "keystep", "table")


def _specs(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _granularities(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    found = tuple(_specs(value))
    unknown = sorted(set(found) - {"coarse", "fine"})
    if unknown or not found:
        raise click.BadParameter(f"takes coarse, fine or coarse,fine; got {value!r}")
    return found


@click.command()
@click.option(
    "--annotations",
    "annotations",
    required=True,
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Step annotation file (repeatable): YouCook2, HiREST, Ego4D Goal-Step, Ego-Exo4D keysteps "
    "or the table form (CSV/JSONL).",
)
@click.option("--format", "annotation_format", type=click.Choice(FORMATS), default="auto", show_default=True)
@click.option(
    "--label-map",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="YouCook2 recipe-type names: 'code,name' per line.",
)
@click.option(
    "--videos",
    required=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of <video_id>.<ext> files (at any depth).",
)
@click.option(
    "--llm", "llm_spec", required=True, help="Model that writes and filters questions and writes distractors."
)
@click.option(
    "--checkers",
    required=True,
    help="Three (or more) different model specs, comma-separated, that check the options with and "
    "without the annotations.",
)
@click.option(
    "--embedder",
    default="minilm",
    show_default=True,
    help="Text embedder of the duplicate-option check; 'none' checks normalised text only.",
)
@click.option("--granularity", default="coarse,fine", show_default=True, callback=_granularities)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--name", default="instructionbench-build", show_default=True, help="Benchmark name in the card."
)
@click.option(
    "--mcq-attempts",
    type=click.IntRange(1),
    default=10,
    show_default=True,
    help="Option designs per question.",
)
@concurrency_option
@engine_options
@set_aside_option
@click.option("--seed", type=int, default=0, show_default=True)
def instructionbench(
    annotations: tuple[Path, ...],
    annotation_format: str,
    label_map: Path | None,
    videos: Path,
    llm_spec: str,
    checkers: str,
    embedder: str,
    granularity: tuple[str, ...],
    out: Path,
    name: str,
    mcq_attempts: int,
    concurrency: int,
    engine: str,
    ray_address: str | None,
    seed: int,
    set_aside_bad_lines: bool,
) -> None:
    """Build an InstructionBench-style benchmark.

    InstructionBench-style open-ended and five-option questions from step-annotated videos:
    import, trim, write, filter (blind, hallucination, tricky, unspecific) and verify options.
    Rerunning the same command reuses every model step already done."""
    from vqakit.systems.instructionbench.builder import (
        InputError,
        InstructionBenchBuildConfig,
        build_instructionbench_from_specs,
        check_checkers,
    )

    checker_specs = _specs(checkers)
    try:
        check_checkers(checker_specs)
    except InputError as error:
        raise click.BadParameter(str(error), param_hint="--checkers") from None
    config = InstructionBenchBuildConfig(
        granularities=granularity,  # type: ignore[arg-type]
        annotation_format=annotation_format,
        label_map=label_map,
        mcq_attempts=mcq_attempts,
        seed=seed,
        name=name,
    )
    if set_aside_bad_lines:
        set_aside_journal(out, "build instructionbench")
    try:
        with progress() as update:
            outcome = build_instructionbench_from_specs(
                annotations,
                videos,
                out,
                llm=llm_spec,
                checkers=checker_specs,
                embedder=None if embedder.lower() == "none" else embedder,
                config=config,
                concurrency=concurrency,
                engine=engine,
                ray_address=ray_address,
                on_stage=stage_printer(22),
                on_step=lambda done, failed: update(done, None, failed, "model steps"),
            )
    except InputError as error:
        raise click.ClickException(str(error)) from None
    click.echo(
        f"{outcome.open_ended} open-ended and {outcome.mcq} multiple-choice questions, {outcome.clips} clips "
        f"of {outcome.videos} videos -> {outcome.folder} ({outcome.reused_calls} model steps reused)"
    )
    click.echo(f"stage report and statistics: {outcome.folder / 'build/report.md'}")
    for note in outcome.notes:
        click.echo(f"note: {note}")
