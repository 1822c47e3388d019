"""`vqakit label movierecapsqa`: category and modality labels for the questions of an imported
MovieRecapsQA benchmark, so that per-category and per-modality tables work on the release."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import concurrency_option
from vqakit.cli._progress import progress


@click.command()
@click.argument("bench", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--llm", "llm_spec", help="Model that labels the questions.")
@click.option("--vlm", "vlm_spec", help="Vision model that describes each segment first (default: none).")
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Apply these labels instead of asking a model (a labels.json, e.g. a build's tables/labels.json).",
)
@click.option("--relabel", is_flag=True, help="Label again questions that already have both labels.")
@click.option("--frames", type=click.IntRange(1), default=4, show_default=True, help="Frames the VLM sees.")
@concurrency_option
def movierecapsqa(
    bench: Path,
    llm_spec: str | None,
    vlm_spec: str | None,
    labels_file: Path | None,
    relabel: bool,
    frames: int,
    concurrency: int,
) -> None:
    """Add MovieRecapsQA categories and modalities.

    Add `category` (TEMP, CRD, NPA, STA, TH) and `modality` (dialogue, scene, multimodal) to
    the samples of BENCH, in place: samples.jsonl is replaced only once every sample validates.
    Model steps are journaled in BENCH/labels/ (a rerun reuses them), with the questions left
    unlabelled and why, and every label in BENCH/labels/labels.json."""
    if (llm_spec is None) == (labels_file is None):
        raise click.UsageError("give --llm (and optionally --vlm), or --labels")
    if labels_file is not None and (vlm_spec or relabel):
        raise click.UsageError("--vlm and --relabel go with --llm, not with --labels")
    from vqakit.systems.movierecapsqa.classify import read_labels
    from vqakit.systems.movierecapsqa.labeling import apply_labels, label_benchmark_from_specs

    try:
        if labels_file is not None:
            report = apply_labels(bench, read_labels(labels_file))
            click.echo(f"labelled {report.labelled} samples of {bench} from {labels_file}")
            if report.unmatched:
                shown = ", ".join(report.unmatched[:5]) + (" ..." if len(report.unmatched) > 5 else "")
                click.echo(f"{len(report.unmatched)} label(s) match no sample: {shown}", err=True)
            return
        with progress() as update:
            outcome = label_benchmark_from_specs(
                bench,
                llm=llm_spec,  # type: ignore[arg-type]
                vlm=vlm_spec,
                concurrency=concurrency,
                relabel=relabel,
                frames=frames,
                on_step=lambda done, failed: update(done, None, failed, "model steps"),
            )
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    for key, why in sorted(outcome.unlabelled.items()):
        click.echo(f"unlabelled {key}: {why}", err=True)
    click.echo(
        f"labelled {outcome.labelled} questions ({outcome.kept} kept their labels, "
        f"{len(outcome.unlabelled)} unlabelled; {outcome.reused_calls} model steps reused) "
        f"-> {outcome.labels_file}"
    )
    if outcome.unlabelled:  # a step that produced nothing is a failure, never a quiet "labelled 0"
        raise click.ClickException(
            f"{len(outcome.unlabelled)} question(s) got no labels; the reasons are above and in "
            f"{outcome.drops_file}; rerun the same command to retry them (finished steps are reused)"
        )
