"""Stage 1: each recap cut into segments of about a minute, with the transcript cues of each.

Shots are detected with PySceneDetect (`detect_shots`) and consecutive shots that look alike are
merged into scenes (`merge_shots`: colour histograms, or the image embedder when one is given).
Scenes then become segments, by these rules in order:

1. a scene longer than `max_segment_s` is cut into equal parts no longer than that;
2. consecutive scenes (or parts) join until the segment is at least `min_segment_s` long;
3. a last segment shorter than `min_segment_s` joins the one before it.

So segments always end on a cut (or inside a very long scene) and a segment may pass
`max_segment_s` by less than one scene. A transcript cue belongs to the segment that holds its
middle, so no cue is read twice. A segment without transcript text is dropped: its facts would
have nothing to come from.

Shots and scenes are kept in `build/segments/<video_id>.json`, keyed by the file (path, size,
modification time) and the detection settings, so a rerun does not decode the recap again.
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.systems.movierecapsqa.builder.context import BuildContext, RecapInput, RecapSegment
from vqakit.video import Cue, VideoError, detect_shots, merge_shots, read_subtitles

SEGMENTS = "1 segments"
CACHE = "segments"


def group_scenes(
    scenes: list[tuple[float, float]], min_segment_s: float, max_segment_s: float
) -> list[tuple[float, float]]:
    """Segments (start, end) from consecutive scenes by the rules of the module docstring."""
    parts: list[tuple[float, float]] = []
    for start, end in scenes:
        count = max(1, math.ceil((end - start) / max_segment_s - 1e-9))
        step = (end - start) / count
        parts += [(start + k * step, end if k == count - 1 else start + (k + 1) * step) for k in range(count)]
    segments: list[tuple[float, float]] = []
    opened: float | None = None
    for start, end in parts:
        opened = start if opened is None else opened
        if end - opened >= min_segment_s - 1e-9:
            segments.append((opened, end))
            opened = None
    if opened is not None and parts:
        if segments:
            segments[-1] = (segments[-1][0], parts[-1][1])
        else:
            segments.append((opened, parts[-1][1]))
    return [(round(start, 3), round(end, 3)) for start, end in segments]


def assign_cues(cues: list[Cue], windows: list[tuple[float, float]]) -> list[list[Cue]]:
    """The cues of each window: those whose middle falls in it (the last window keeps its end)."""
    found: list[list[Cue]] = [[] for _ in windows]
    for cue in cues:
        middle = (cue.start_s + cue.end_s) / 2
        for index, (start, end) in enumerate(windows):
            last = index == len(windows) - 1
            if start <= middle < end or (last and middle == end):
                found[index].append(cue)
                break
    return found


def _file_key(path: Path, settings: dict[str, Any]) -> str:
    stat = path.stat()
    text = json.dumps([str(path), stat.st_size, stat.st_mtime_ns, settings], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _embedder_name(embedder: Any) -> str | None:
    return None if embedder is None else str(getattr(embedder, "spec", type(embedder).__name__))


def detect_scenes(ctx: BuildContext, recap: RecapInput) -> tuple[list[tuple[float, float]], bool]:
    """(scenes, reused): the recap's merged shots, from the cache when its key matches."""
    config = ctx.config
    settings = {
        "detector": config.detector,
        "threshold": config.threshold,
        "merge_distance": config.merge_distance,
        "embedder": _embedder_name(ctx.embedder),
    }
    key = _file_key(recap.recap, settings)
    cache = ctx.folder / CACHE / f"{recap.video_id}.json"
    if cache.is_file():
        known = json.loads(cache.read_text(encoding="utf-8"))
        if known.get("key") == key:
            return [tuple(scene) for scene in known["scenes"]], True  # type: ignore[misc]
    shots = detect_shots(recap.recap, detector=config.detector, threshold=config.threshold)  # type: ignore[arg-type]
    scenes = merge_shots(recap.recap, shots, distance=config.merge_distance, embedder=ctx.embedder)
    record = {
        "key": key,
        "video": str(recap.recap),
        "settings": settings,
        "shots": [[shot.start_s, shot.end_s] for shot in shots],
        "scenes": [[scene.start_s, scene.end_s] for scene in scenes],
    }
    write_text_atomic(cache, json.dumps(record, indent=1) + "\n")
    return [(scene.start_s, scene.end_s) for scene in scenes], False


def _recap_segments(ctx: BuildContext, recap: RecapInput) -> list[RecapSegment] | str:
    """The recap's segments with their cues, or why the recap cannot be used."""
    for what, path in (("recap video", recap.recap), ("transcript", recap.recap_subtitles)):
        if not path.is_file():
            return f"missing {what}: {path}"
    try:
        cues = read_subtitles(recap.recap_subtitles)
    except VideoError as error:
        return f"unreadable transcript: {error}"
    try:
        scenes, reused = detect_scenes(ctx, recap)
    except VideoError as error:
        return f"unreadable recap video: {error}"
    if reused:
        ctx.log.note(f"{recap.video_id}: shots and scenes reused from build/{CACHE}/{recap.video_id}.json")
    windows = group_scenes(scenes, ctx.config.min_segment_s, ctx.config.max_segment_s)
    return [
        RecapSegment(recap, number, start, end, found)
        for number, ((start, end), found) in enumerate(zip(windows, assign_cues(cues, windows), strict=True))
    ]


def make_segments(ctx: BuildContext, recaps: list[RecapInput]) -> list[RecapSegment]:
    """Stage 1 over every recap (one after another: it is decoding, not model work)."""
    kept: list[RecapSegment] = []
    for recap in recaps:
        found = _recap_segments(ctx, recap)
        if isinstance(found, str):
            ctx.log.drop(SEGMENTS, recap.video_id, found)
            continue
        for segment in found:
            if segment.narration():
                kept.append(segment)
            else:
                window = f"{segment.start_s:g}-{segment.end_s:g} s"
                ctx.log.drop(SEGMENTS, segment.id, f"no transcript: no cue with text in {window}")
    ctx.log.close(SEGMENTS, "recaps -> segments", len(recaps), len(kept))
    return kept
