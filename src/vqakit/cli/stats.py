"""`vqakit stats`: dataset statistics of a benchmark."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
@click.argument("bench")
@click.option("--no-media", is_flag=True, help="Do not open the videos (no durations).")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the statistics as JSON here (default: <benchmark>-stats.json).",
)
def stats(bench: str, no_media: bool, out: Path | None) -> None:
    """Print and write dataset statistics: questions, videos and their durations, question, answer
    and option lengths, gold letters, categories and skills, and reasoning traces (steps,
    timestamps and objects per trace)."""
    from vqakit.benchmarks import benchmark_stats, default_stats_path, load_benchmark, stats_lines
    from vqakit.files import write_text_atomic

    found = benchmark_stats(load_benchmark(bench), media=not no_media)
    for line in stats_lines(found):
        click.echo(line)
    path = write_text_atomic(out or default_stats_path(found), json.dumps(found, indent=1) + "\n")
    click.echo(f"-> {path}")
