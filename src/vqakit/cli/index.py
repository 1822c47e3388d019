"""`vqakit index`: embed a benchmark's corpora for retrieval."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._progress import progress


@click.command()
@click.argument("bench")
@click.option(
    "--text-embedder", help="Passage and description embedder: minilm (default) or sentence-transformers:X."
)
@click.option(
    "--image-embedder",
    help="Clip frame embedder, clip:<folder or hub id> (CLIP, SigLIP, MetaCLIP); needed for visual "
    "retrieval and localization.",
)
@click.option(
    "--fps",
    type=click.FloatRange(min=0, min_open=True),
    default=2.0,
    show_default=True,
    help="Frames per second embedded for each clip.",
)
@click.option(
    "--frame-side",
    type=click.IntRange(16),
    default=224,
    show_default=True,
    help="Short side of the frames before embedding.",
)
@click.option(
    "--ivf-lists", type=click.IntRange(1), help="Also build an approximate (IVF) index with N lists."
)
@click.option(
    "--store",
    type=click.Choice(["numpy", "lancedb"]),
    help="Vector store: numpy (default; a matrix per table) or lancedb (LanceDB tables, vectors on disk).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    help="Index folder (default: the benchmark's, in the vqakit cache, where eval looks).",
)
def index(
    bench: str,
    text_embedder: str | None,
    image_embedder: str | None,
    fps: float,
    frame_side: int,
    ivf_lists: int | None,
    store: str | None,
    out: Path | None,
) -> None:
    """Embed a benchmark's corpus for retrieval.

    Embed BENCH's passages and clips for retrieval; only new or changed items are embedded.

    Two of these on the same index take turns: the second waits, then reuses what the first wrote."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.retrieval import index_benchmark

    benchmark = load_benchmark(bench)
    with progress("index") as update:
        folder, settings, built, report = index_benchmark(
            benchmark,
            out,
            text_embedder=text_embedder,
            image_embedder=image_embedder,
            fps=fps,
            frame_side=frame_side,
            ivf_lists=ivf_lists,
            store=store,
            on_progress=lambda what, done, total: update(done, total, 0, what),
            on_wait=update.line,
        )
    click.echo(f"index of {benchmark.card.name} ({settings.store} store) -> {folder}")
    for name, table in built.tables.items():
        if name not in report.embedded and not len(table):
            continue
        click.echo(
            f"  {name:<13}{len(table):>7} rows  ({report.embedded.get(name, 0)} embedded, "
            f"{report.kept.get(name, 0)} unchanged, {report.removed.get(name, 0)} removed)"
        )
    for note in report.notes:
        click.echo(f"note: {note}")
