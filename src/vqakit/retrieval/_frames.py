"""The frame tables of an index: clips decoded at `fps` and their frames embedded by the
retrieval image embedder (tables `frames` and `clips`) and by each localize embedder (a table
`frames-...` each, see `frames_table`)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from vqakit.files import slug
from vqakit.retrieval._store import Row
from vqakit.schema import Benchmark, Clip

if TYPE_CHECKING:
    from vqakit.retrieval._index import CorpusIndex, IndexReport, IndexSettings


def digest(*parts: Any) -> str:
    return hashlib.sha256("\x1f".join(str(part) for part in parts).encode()).hexdigest()[:24]


def frames_table(spec: str) -> str:
    """The table name of a localize embedder's frame vectors."""
    return f"frames-{slug(spec, 40)}-{digest(spec)[:8]}"


def clip_key(benchmark: Benchmark, clip: Clip, settings: IndexSettings, embedder: str | None) -> str:
    path = benchmark.root / clip.video.path
    try:
        stat = os.stat(path)
        seen = (stat.st_size, stat.st_mtime_ns)
    except OSError:
        seen = ("missing",)
    return digest(
        "clip-v2",  # layout of the clip rows; bumping it re-embeds every clip
        embedder,
        settings.fps,
        settings.frame_side,
        clip.video.path,
        *seen,
        clip.video.start_s,
        clip.video.end_s,
    )


def index_clips(
    benchmark: Benchmark,
    index: CorpusIndex,
    settings: IndexSettings,
    image_model: Callable[[str], Any],
    report: IndexReport,
    on_progress: Callable[[str, int, int], None] | None,
) -> None:
    """Bring every frame table (and the clips table) up to date; a clip that some table lacks is
    decoded once and embedded by each embedder that lacks it."""
    from vqakit.schema import Fps
    from vqakit.video import Resize, sample_frames

    # (embedder, its frame table, clip vectors kept too): the retrieval one, then localize ones
    targets = [(spec, frames_table(spec), False) for spec in settings.extra_frame_embedders()]
    if settings.image_embedder:
        targets.insert(0, (settings.image_embedder, "frames", True))
    else:
        for name in ("frames", "clips"):
            report.removed[name] = len(index.tables[name])
            index.tables[name].replace_rows([], [])
    keys = {
        (spec, clip.id): clip_key(benchmark, clip, settings, spec)
        for spec, _, _ in targets
        for clip in benchmark.clips.values()
    }
    stale: dict[str, list[tuple[str, str, bool]]] = {}
    for target in targets:
        spec, name, _ = target
        rows = index.frame_rows(name)
        for clip_id in benchmark.clips:
            known = index.tables[name].ids[rows[clip_id][0]] if rows.get(clip_id) else None
            if known is None or index.tables[name].key_of(known) != keys[spec, clip_id]:
                stale.setdefault(clip_id, []).append(target)
    fresh: dict[str, list[Row]] = {name: [] for _, name, _ in targets}
    fresh["clips"] = []
    for number, (clip_id, needed) in enumerate(stale.items(), start=1):
        clip = benchmark.clips[clip_id]
        sampling = Fps(settings.fps, start_s=clip.video.start_s, end_s=clip.video.end_s)
        decoded = sample_frames(
            benchmark.root / clip.video.path, sampling, resize=Resize(short_side=settings.frame_side)
        )
        if not decoded:
            raise ValueError(f"corpus/clips.jsonl: clip {clip_id!r}: no frames in {clip.video.path}")
        start = clip.video.start_s or 0.0  # frame i of the clip stands for start + i / fps
        for spec, name, with_clip in needed:
            key = keys[spec, clip_id]
            vectors = image_model(spec).embed_images([frame.image for frame in decoded])
            where = {} if with_clip else {"start_s": start}  # the clips table holds the start otherwise
            fresh[name] += [
                Row(f"{clip_id}#{i}", key, vector, {"clip": clip_id, "time_s": frame.time_s, **where})
                for i, (frame, vector) in enumerate(zip(decoded, vectors, strict=True))
            ]
            if with_clip:
                mean = vectors.mean(axis=0)
                vector = mean / max(float(np.linalg.norm(mean)), 1e-12)
                fresh["clips"].append(Row(clip_id, key, vector, {"start_s": start, "frames": len(decoded)}))
        if on_progress:
            on_progress("clips", number, len(stale))
    for _, name, with_clip in targets:
        table, rows = index.tables[name], index.frame_rows(name)
        done = {row.extra["clip"] for row in fresh[name]}
        keep = [
            table.ids[p] for clip_id in benchmark.clips if clip_id not in done for p in rows.get(clip_id, [])
        ]
        _replace(
            report,
            name,
            table,
            keep,
            fresh[name],
            sum(1 for e in table.extras if e["clip"] not in benchmark.clips),
        )
        if with_clip:
            table = index.tables["clips"]
            keep = [clip_id for clip_id in benchmark.clips if clip_id not in done]
            _replace(
                report,
                "clips",
                table,
                keep,
                fresh["clips"],
                sum(1 for i in table.ids if i not in benchmark.clips),
            )


def _replace(
    report: IndexReport, name: str, table: Any, keep: list[str], fresh: list[Row], removed: int
) -> None:
    table.replace_rows(keep, fresh)
    report.embedded[name] = len(fresh)
    report.kept[name] = len(keep)
    report.removed[name] = removed
