"""`vqakit frames` and `vqakit probe`: looking at a video."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click


def frame_spec(
    uniform: int | None,
    fps: float | None,
    max_frames: int | None,
    at: str | None,
    start: float | None,
    end: float | None,
):
    """The sampling spec the frame options describe (exactly one of --uniform, --fps, --at)."""
    from vqakit.schema import Fps, Timestamps, Uniform

    chosen = [
        name for name, value in (("--uniform", uniform), ("--fps", fps), ("--at", at)) if value is not None
    ]
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --uniform N, --fps F or --at T1,T2,...")
    if max_frames is not None and fps is None:
        raise click.UsageError("--max only goes with --fps")
    if at is not None:
        if start is not None or end is not None:
            raise click.UsageError("--start/--end do not apply to --at")
        try:
            times = tuple(float(part) for part in at.split(",") if part.strip())
        except ValueError:
            raise click.UsageError(f"--at takes seconds separated by commas, got {at!r}") from None
        if not times:
            raise click.UsageError("--at needs at least one time")
        return Timestamps(times)
    try:
        if uniform is not None:
            return Uniform(uniform, start, end)
        return Fps(fps, max_frames, start, end)  # type: ignore[arg-type]
    except ValueError as error:
        raise click.UsageError(str(error)) from None


@click.command()
@click.argument("video")
@click.option("--uniform", type=click.IntRange(min=1), help="N frames at the centres of N equal slices.")
@click.option("--fps", type=float, help="F frames per second.")
@click.option(
    "--max", "max_frames", type=click.IntRange(min=1), help="With --fps: at most N frames (uniform if more)."
)
@click.option("--at", help="Explicit times in seconds: 1.5,3,12.25")
@click.option("--start", type=float, help="Window start (seconds).")
@click.option("--end", type=float, help="Window end (seconds).")
@click.option(
    "--short-side", type=int, help="Shrink so the short side has at most PX pixels (never enlarges)."
)
@click.option("--upscale", is_flag=True, help="With --short-side: also enlarge smaller frames to PX.")
@click.option("--max-pixels", type=int, help="Shrink so width x height is at most this.")
@click.option("--keyframes", is_flag=True, help="Fast inexact mode: the keyframe at or before each time.")
@click.option("--format", "image_format", type=click.Choice(["jpg", "png"]), default="jpg", show_default=True)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path))
def frames(
    video: str,
    short_side: int | None,
    upscale: bool,
    max_pixels: int | None,
    keyframes: bool,
    image_format: str,
    out: Path,
    **spec_options: Any,
) -> None:
    """Write sampled frames of a video as images.

    Write sampled frames of VIDEO as images plus frames.json.

    VIDEO is a file, or BENCH:path for a file inside a shipped benchmark
    (e.g. sample:media/bigbuckbunny.mp4). Each frame is the one on screen at the requested
    time; frames.json lists index, time_s (the frame's own time), frame_number and requested_s.
    """
    from vqakit.benchmarks import resolve_media
    from vqakit.video import Resize, write_frames

    spec = frame_spec(**spec_options)
    resize = Resize(short_side, max_pixels, upscale) if short_side or max_pixels else None
    listing = write_frames(
        resolve_media(video), spec, out, resize=resize, exact=not keyframes, image_format=image_format
    )
    if not listing:
        raise click.ClickException(f"no frame of {video} falls in the window asked for; nothing written")
    click.echo(f"wrote {len(listing)} frames to {out}")


@click.command()
@click.argument("video")
@click.option("--exact", is_flag=True, help="Count frames and measure duration from the stream itself.")
def probe(video: str, exact: bool) -> None:
    """Print a video's duration, fps, size and codec.

    Print duration, fps, frame count, size, rotation and codec of VIDEO as JSON."""
    from vqakit.benchmarks import resolve_media
    from vqakit.video import probe as probe_video

    info = probe_video(resolve_media(video), exact=exact)
    click.echo(json.dumps(info.__dict__, indent=1))
