"""`vqakit rank`: runs ranked by reasoning under several rubric judges."""

from __future__ import annotations

import json
from pathlib import Path

import click

from vqakit.cli._options import concurrency_option


@click.command()
@click.argument(
    "runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--judges", required=True, help="Rubric judge model specs, comma-separated (two or more).")
@click.option(
    "--out", type=click.Path(dir_okay=False, path_type=Path), help="Write the ranking as JSON here."
)
@concurrency_option
@click.option(
    "--reasoning-source",
    type=click.Choice(["reply", "thinking", "both"]),
    default="reply",
    show_default=True,
    help="What the judges read as each run's reasoning: the reply, the separate thinking text, or both.",
)
def rank(
    runs: tuple[Path, ...], judges: str, out: Path | None, concurrency: int, reasoning_source: str
) -> None:
    """Rank runs by reasoning quality (rubric judges).

    Rank RUNS by reasoning quality under each rubric judge (MiRA, summed criteria means,
    0-8) and report how much the judges' rankings agree (Kendall's tau)."""
    from vqakit.systems.minerva_ego.rank import rank_runs

    specs = [spec.strip() for spec in judges.split(",") if spec.strip()]
    result = rank_runs(list(runs), specs, concurrency, reasoning_source)
    for judge, order in result["rankings"].items():
        click.echo(f"judge {judge}:")
        for place, run in enumerate(order, start=1):
            score = result["scores"][judge][run]
            click.echo(f"  {place}. {run}  {score['total']:.2f} / 8  (n={score['n']})")
    for pair, tau in result["kendall_tau"].items():
        click.echo(f"agreement {pair}: Kendall tau {tau:+.2f}")
    if out is not None:
        from vqakit.report import write_ranking_report

        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
        click.echo(f"-> {out} and {write_ranking_report(out.with_suffix('.html'), result)}")
