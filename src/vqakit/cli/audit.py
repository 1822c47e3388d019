"""`vqakit audit`: the modality-bias audit of a benchmark."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import concurrency_option
from vqakit.cli._progress import progress


@click.command()
@click.argument("bench")
@click.option("--models", required=True, help="Text-only model specs, comma-separated.")
@click.option(
    "--k",
    "agree",
    type=click.IntRange(1),
    default=None,
    help="Flag when at least K models are right (default: all of them).",
)
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Audit folder (default runs/...)."
)
@concurrency_option
def audit(bench: str, models: str, agree: int | None, out: Path | None, concurrency: int) -> None:
    """Audit a benchmark for modality and letter biases.

    Modality-bias audit: text-only models answer from question and options alone (one blind
    run each); questions at least K of them get right are listed for review, nothing is deleted.
    Also reports gold-letter and option-length biases. Writes audit.json."""
    from vqakit.runner import run_audit

    specs = [spec.strip() for spec in models.split(",") if spec.strip()]
    with progress() as update:
        report, folder = run_audit(
            bench,
            specs,
            agree,
            out,
            concurrency,
            on_progress=lambda spec, seen: update(
                seen.done, seen.total, seen.errors, spec, seen.not_applicable
            ),
        )
    options = report["options"]
    click.echo(
        f"gold letters: {options['gold_letters']}; gold is the longest option in "
        f"{100 * options['gold_is_longest']:.0f}% of questions (one option by chance: "
        f"{100 * options['chance_of_one_option']:.0f}%)"
    )
    for model, right in report["blind"]["right_per_model"].items():
        click.echo(f"{model}: {right} right without the video")
    flagged = report["blind"]["flagged"]
    click.echo(
        f"{len(flagged)} question(s) answered without the video by at least {report['blind']['k']} "
        f"model(s), for review:"
    )
    for item in flagged:
        click.echo(f"  {item['sample_id']}: {item['question']}")
    click.echo(f"-> {folder / 'audit.json'}")
