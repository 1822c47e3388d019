"""`vqakit cache stats` and `vqakit cache clear`: the response cache and the frame store."""

from __future__ import annotations

import click


def _mib(size: int) -> str:
    return f"{size / 2**20:.1f} MiB"


@click.command()
def stats() -> None:
    """Show what the caches hold, per model and kind.

    Responses per model, frames kept, and the size of each."""
    from vqakit.models import ResponseCache
    from vqakit.video import FrameStore

    found = ResponseCache().stats()
    click.echo(f"responses {found['path']}: {found['entries']} entries, {_mib(found['bytes'])}")
    for spec, count in sorted(found["models"].items()):
        click.echo(f"  {count:>8}  {spec}")
    frames = FrameStore().stats()
    click.echo(
        f"frames {frames['path']}: {frames['entries']} entries (frames and strips) of {frames['videos']} "
        f"video(s), {_mib(frames['bytes'])} of at most {_mib(frames['max_bytes'])} "
        "(VQAKIT_FRAME_CACHE_SIZE)"
    )


@click.command()
@click.option("--model", "spec", help="Only the responses of this model spec (frames are kept).")
@click.option("--responses", "only_responses", is_flag=True, help="Only the response cache.")
@click.option("--frames", "only_frames", is_flag=True, help="Only the frame store.")
def clear(spec: str | None, only_responses: bool, only_frames: bool) -> None:
    """Delete cached responses and kept frames.

    Delete cached responses and kept frames (all, or one kind, or one model's responses)."""
    from vqakit.models import ResponseCache
    from vqakit.video import FrameStore

    if only_responses and only_frames:
        raise click.UsageError("--responses and --frames exclude each other; give neither to clear both")
    if not only_frames:
        click.echo(f"removed {ResponseCache().clear(spec)} entries (responses)")
    if not (only_responses or spec):
        click.echo(f"removed {FrameStore().clear()} entries (frame store)")
