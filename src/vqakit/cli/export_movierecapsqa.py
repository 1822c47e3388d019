"""`vqakit movierecapsqa-results`: a run's claim scores in the official MovieRecapsQA results
shape (JSONL), for the official analysis scripts or to compare with published results."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("run", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Results file (default: <run>/official_results.jsonl).",
)
def movierecapsqa_results(run: Path, out: Path | None) -> None:
    """Write a run's scores as MovieRecapsQA's results.

    Write RUN's claims, per-claim labels and 0-5 scores per question as the official results
    JSONL (question_idx, claims, evaluations.{factuality,coherence,relevance}, aggregate_score);
    a missing score is the official -1."""
    from vqakit.runs import RunFolderError
    from vqakit.systems.movierecapsqa.official_results import write_official_results

    target = out or run / "official_results.jsonl"
    try:
        written, left_out = write_official_results(run, target)
    except RunFolderError as error:
        raise click.ClickException(str(error)) from None
    skipped = ", ".join(f"{count} {why.replace('_', ' ')}" for why, count in left_out.items() if count)
    click.echo(f"wrote {written} question(s) -> {target}" + (f" (left out: {skipped})" if skipped else ""))
