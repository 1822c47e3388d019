"""`vqakit export-bench`: a benchmark as a Hugging Face dataset or an lmms-eval task."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument("bench")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["hf", "lmms-eval"]),
    required=True,
    help="hf: Parquet shards and a dataset card (datasets.load_dataset(DIR) reads it); lmms-eval: a task "
    "YAML, utils.py and the rows, with vqakit's prompts and answer reading.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--with-media",
    is_flag=True,
    help="Copy the videos and subtitles into OUT/media (default: reference them).",
)
@click.option("--task", help="lmms-eval task name (default vqakit_<benchmark name>).")
@click.option("--frames", help="lmms-eval: a frame spec replacing the benchmark protocol's (e.g. uniform:8).")
@click.option(
    "--split",
    help="hf: the split the rows are (default: the one the card names, as an import records it, else test).",
)
def export_bench(
    bench: str,
    fmt: str,
    out: Path,
    with_media: bool,
    task: str | None,
    frames: str | None,
    split: str | None,
) -> None:
    """Export a benchmark for Hugging Face or lmms-eval.

    BENCH (a folder or a shipped benchmark's name) as a Hugging Face dataset or an lmms-eval task
    folder at OUT. BENCH is a folder or a shipped benchmark's name; OUT the dataset or task folder."""
    from vqakit.schema import BenchmarkError
    from vqakit.tables import export_benchmark

    if split is not None and fmt != "hf":
        raise click.UsageError("--split is for --format hf (an lmms-eval task reads its rows as test)")
    try:
        done = export_benchmark(bench, fmt, out, with_media=with_media, task=task, frames=frames, split=split)
    except (ValueError, BenchmarkError) as error:
        raise click.ClickException(str(error)) from None
    media = f", {done.media} media files copied" if with_media else ""
    click.echo(f"wrote {done.rows} questions to {out}{media}")
    if fmt == "hf":
        videos = out / "media" if with_media else "<BENCH>/media"
        click.echo(
            f"load it with datasets.load_dataset({str(out)!r}), or: vqakit import table {out} "
            f"--map {out / 'vqakit/mapping.yaml'} --videos {videos} --out DIR"
        )
    else:
        yaml_file = next(p for p in done.files if p.suffix == ".yaml")
        click.echo(f"run it with: lmms-eval eval --include_path {out} --tasks {yaml_file.stem} --model ...")
