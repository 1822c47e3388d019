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
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    help="Write the statistics as JSON here; - for stdout (default: BENCH/stats.json, or stdout "
    "for a shipped benchmark).",
)
def stats(bench: str, no_media: bool, out: Path | None) -> None:
    """Print and write a benchmark's statistics.

    Print and write dataset statistics: questions, videos and their durations, question, answer
    and option lengths, gold letters, categories and skills, and reasoning traces (steps,
    timestamps and objects per trace). When the JSON goes to stdout, the summary goes to stderr."""
    from vqakit.benchmarks import benchmark_stats, default_stats_path, load_benchmark, stats_lines
    from vqakit.files import write_text_atomic

    found = benchmark_stats(load_benchmark(bench), media=not no_media)
    target = out if out is not None else default_stats_path(bench)
    to_stdout = target is None or str(target) == "-"
    for line in stats_lines(found):
        click.echo(line, err=to_stdout)
    text = json.dumps(found, indent=1) + "\n"
    if to_stdout:
        click.echo(text, nl=False)
        return
    click.echo(f"-> {write_text_atomic(target, text)}")
