"""`vqakit validate`."""

from __future__ import annotations

import sys

import click


@click.command()
@click.argument("bench")
@click.option("--no-media", is_flag=True, help="Only check that media files exist; do not open them.")
def validate(bench: str, no_media: bool) -> None:
    """Check a benchmark folder.

    Check a benchmark folder; print one FILE:LINE: field: problem line per problem.

    Exits 0 when the benchmark is valid, 1 otherwise.
    """
    from vqakit.benchmarks import check_benchmark, resolve_benchmark
    from vqakit.schema import benchmark_warnings

    benchmark, problems = check_benchmark(bench, media=not no_media)
    for problem in problems:
        click.echo(str(problem))
    for warning in benchmark_warnings(benchmark) if benchmark is not None else []:
        click.echo(f"warning: {warning}", err=True)
    if problems or benchmark is None:
        click.echo(f"{resolve_benchmark(bench)}: {len(problems)} problem(s)", err=True)
        sys.exit(1)
    clips, passages = len(benchmark.clips), len(benchmark.passages)
    click.echo(
        f"{benchmark.card.name} {benchmark.card.version}: valid "
        f"({len(benchmark.samples)} samples, {clips} clips, {passages} passages)"
    )
