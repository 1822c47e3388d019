"""Steps 1-3 of the EgoFact builder: cut videos into windows with timelines, narrate each
window, and keep one representative window per cluster of similar ones."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.prompts import render_prompt
from vqakit.retrieval import spherical_kmeans
from vqakit.schema import Timestamps
from vqakit.systems.egofact.builder.context import BuildContext
from vqakit.systems.egofact.builder.inputs import Event
from vqakit.systems.egofact.builder.steps import Caption, Narration, Window, timeline
from vqakit.video import Resize, fixed_windows, probe, sample_frames


async def cut_windows(ctx: BuildContext, videos: dict[str, Path], events: list[Event]) -> list[Window]:
    """Step 1: full `window_s` windows of every video, each with its events, sounds and (with a
    VLM) screenshot captions."""
    window_s = ctx.config.window_s
    windows: list[Window] = []
    for key, path in videos.items():
        duration = probe(path).duration_s or 0.0
        cuts = fixed_windows(duration, window_s, min_last_s=window_s)
        if not cuts:
            ctx.log.drop("1 windows", key, f"shorter than a window: {duration:.1f} s < {window_s:g} s")
        stem = Path(key).with_suffix("").as_posix().replace("/", "_")
        for number, (start, end) in enumerate(cuts):
            inside = [e for e in events if e.video == key and start <= e.time_s < end]
            windows.append(
                Window(
                    id=f"{stem}-w{number:03d}",
                    video=key,
                    start_s=start,
                    end_s=end,
                    events=[e for e in inside if e.kind == "event"],
                    sounds=[e for e in inside if e.kind == "sound"],
                )
            )
    if ctx.vlm is None:
        ctx.log.note("no --vlm: timelines hold the annotations only (no screenshot captions)")
    else:
        await asyncio.gather(*(_caption(ctx, videos, window) for window in windows))
    ctx.log.close("1 windows", "videos -> windows", len(videos), len(windows))
    return windows


def screenshots(ctx: BuildContext, videos: dict[str, Path], window: Window) -> list[Any]:
    """A frame every `screenshot_every_s` from the window's start (decoded, resized)."""
    every_s = ctx.config.screenshot_every_s
    count = max(1, round(ctx.config.window_s / every_s))
    return sample_frames(
        videos[window.video],
        Timestamps(tuple(window.start_s + i * every_s for i in range(count))),
        resize=Resize(short_side=ctx.config.screenshot_side),
    )


async def _caption(ctx: BuildContext, videos: dict[str, Path], window: Window) -> None:
    frames = await asyncio.to_thread(screenshots, ctx, videos, window)

    async def one(number: int, frame: Any) -> tuple[float, str] | None:
        prompt = render_prompt("build_caption", time=f"{frame.time_s - window.start_s:.0f} s")
        item = f"{window.id}#{number}"
        found, error = await ctx.steps.ask(ctx.vlm, "caption", item, prompt, Caption, image=frame.image)
        if found is None:
            ctx.log.drop("1 windows", item, f"screenshot caption: {error}")
            return None
        return frame.time_s - window.start_s, found.caption

    captions = await asyncio.gather(*(one(i, frame) for i, frame in enumerate(frames)))
    window.captions = [c for c in captions if c is not None]


async def narrate(ctx: BuildContext, windows: list[Window]) -> list[Window]:
    """Step 2: concise and detailed narrations, activity and weighted keywords of each window."""

    async def one(window: Window) -> Window | None:
        prompt = render_prompt("build_narrate", timeline=timeline(window) or "(nothing annotated)")
        found, error = await ctx.steps.ask(ctx.llm, "narrate", window.id, prompt, Narration)
        if found is None:
            ctx.log.drop("2 narration", window.id, str(error))
            return None
        window.narration = found
        return window

    kept = [w for w in await asyncio.gather(*(one(w) for w in windows)) if w is not None]
    ctx.log.close("2 narration", "windows", len(windows), len(kept))
    return kept


def select(ctx: BuildContext, windows: list[Window]) -> list[Window]:
    """Step 3: windows clustered by their weighted keyword vectors, one representative kept per
    cluster; representatives with fewer than `min_events` events are dropped."""
    stage = "3 selection"
    if not windows:
        ctx.log.close(stage, "windows", 0, 0)
        return []
    keywords = sorted({k.keyword for w in windows for k in w.narration.keywords})  # type: ignore[union-attr]
    vectors = dict(zip(keywords, ctx.text_embedder.embed(keywords), strict=True))
    rows = []
    for window in windows:
        total = sum(k.weight * vectors[k.keyword] for k in window.narration.keywords)  # type: ignore[union-attr]
        rows.append(total / max(float(np.linalg.norm(total)), 1e-12))
    matrix = np.stack(rows).astype(np.float32)
    clusters = max(1, round(ctx.config.keep_ratio * len(windows)))
    centroids, assignment = spherical_kmeans(matrix, clusters, seed=ctx.config.seed)
    representative: list[Window] = []
    for cluster in sorted(set(assignment.tolist())):
        members = np.flatnonzero(assignment == cluster)
        best = int(members[np.argmax(matrix[members] @ centroids[cluster])])
        representative.append(windows[best])
        for member in members:
            if member != best:
                reason = f"not representative: cluster {cluster} is represented by {windows[best].id}"
                ctx.log.drop(stage, windows[member].id, reason)
    kept = []
    for window in sorted(representative, key=lambda w: w.id):
        if len(window.events) < ctx.config.min_events:
            ctx.log.drop(stage, window.id, f"too few events: {len(window.events)} < {ctx.config.min_events}")
        else:
            kept.append(window)
    ctx.log.close(stage, "windows", len(windows), len(kept))
    return kept
