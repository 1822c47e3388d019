"""Spatio-temporal hints (Minerva-Ego): marks drawn around the objects a question is about,
and frame times chosen where those objects are present. Styles and drawing: `_hint_draw`.

Tracks are sparse (in HD-EPIC, the first and last frame of each movement). An object is present
where it is annotated: at each track point (within `POINT_TOLERANCE_S`, half a frame at 25 fps,
so that the annotated frame itself counts), and between two consecutive points at most
`max_gap_s` apart, where its box is interpolated linearly. Across a longer gap it is absent
(between two movements an object rests, often out of view, and a box interpolated over a long
stretch of head-mounted video would be wrong). The hints method sets the gap (its option
`max_gap_s`, where the default and its reasons live); these functions take it explicitly.

Mask-only points are turned into their bounding box. A mark's mask (for `contour`) is that of
the nearer of the two points that locate the object at that time, fitted into the
interpolated box when drawn; masks are not propagated any further.
"""

from __future__ import annotations

import bisect
import itertools
from pathlib import Path

import numpy as np

from vqakit.schema import ObjectTrack
from vqakit.video._hint_draw import (
    STYLES,
    Mark,
    describe_marks,
    draw_marks,
    load_mask,
    mask_box,
    parse_style,
)

POINT_TOLERANCE_S = 0.02

Box = tuple[float, float, float, float]


def _located(track: ObjectTrack, root: Path | None) -> list[tuple[float, Box, str | None]]:
    """(time, box, mask path) of each point whose box is known (given, or from its mask)."""
    located = []
    for point in track.points:
        box = tuple(float(v) for v in point.box) if point.box is not None else None
        if box is None and point.mask is not None and root is not None:
            box = mask_box(load_mask(str(root / point.mask)))
        if box is not None:
            located.append((point.time_s, box, point.mask))
    return located  # type: ignore[return-value]


def _bracket(times: list[float], time_s: float, max_gap_s: float) -> tuple[int, int] | None:
    """The points that locate the object at `time_s`: two consecutive ones at most `max_gap_s`
    apart around it, or one within the tolerance (i, i); None where it is absent."""
    after = bisect.bisect_right(times, time_s)
    before = after - 1
    if before >= 0 and after < len(times) and times[after] - times[before] <= max_gap_s:
        return before, after
    near = [i for i in (before, after) if 0 <= i < len(times) and abs(times[i] - time_s) <= POINT_TOLERANCE_S]
    if not near:
        return None
    nearest = min(near, key=lambda i: abs(times[i] - time_s))
    return nearest, nearest


def _locate(track: ObjectTrack, time_s: float, root: Path | None, max_gap_s: float) -> Mark | None:
    points = _located(track, root)
    found = _bracket([p[0] for p in points], time_s, max_gap_s)
    if found is None:
        return None
    (t0, b0, m0), (t1, b1, m1) = points[found[0]], points[found[1]]
    w = 0.0 if t1 == t0 else (time_s - t0) / (t1 - t0)
    box = tuple(a + w * (b - a) for a, b in zip(b0, b1, strict=True))
    with_masks = [(abs(time_s - t), m) for t, m in ((t0, m0), (t1, m1)) if m is not None]
    nearest = min(with_masks, key=lambda pair: pair[0])[1] if with_masks else None
    mask = load_mask(str(root / nearest)) if nearest is not None and root is not None else None
    return Mark(track.label, box, mask)  # type: ignore[arg-type]


def box_at(track: ObjectTrack, time_s: float, root: Path | None = None, *, max_gap_s: float) -> Box | None:
    """The object's box at `time_s` (interpolated), None where it is absent."""
    mark = _locate(track, time_s, root, max_gap_s)
    return mark.box if mark is not None else None


def mask_at(track: ObjectTrack, time_s: float, root: Path | None, *, max_gap_s: float) -> np.ndarray | None:
    """The mask of the nearer of the points that locate the object at `time_s` (None without)."""
    mark = _locate(track, time_s, root, max_gap_s)
    return mark.mask if mark is not None else None


def marks_at(
    tracks: list[ObjectTrack], time_s: float, root: Path | None = None, *, max_gap_s: float
) -> list[Mark]:
    """A mark for each tracked object present at `time_s`, in track order."""
    return [mark for t in tracks if (mark := _locate(t, time_s, root, max_gap_s)) is not None]


def presence_spans(track: ObjectTrack, root: Path | None, *, max_gap_s: float) -> list[tuple[float, float]]:
    """The closed intervals where the object is present, in time order (may touch or overlap)."""
    times = [p[0] for p in _located(track, root)]
    spans = [(t - POINT_TOLERANCE_S, t + POINT_TOLERANCE_S) for t in times]
    spans += [(a, b) for a, b in itertools.pairwise(times) if b - a <= max_gap_s]
    return sorted(spans)


def select_times(
    tracks: list[ObjectTrack],
    duration_s: float,
    budget: int,
    *,
    max_gap_s: float,
    step_s: float = 0.5,
    root: Path | None = None,
) -> list[float]:
    """Temporal selection: the candidate times where a tracked object is present (every `step_s`,
    and each track point's own time, so that annotated frames are never stepped over), spread
    evenly down to `budget` when there are more; the rest of the budget filled uniformly
    (centres of equal slices of the whole video), skipping times already taken. Sorted."""
    spans = [span for track in tracks for span in presence_spans(track, root, max_gap_s=max_gap_s)]
    grid = {round(k * step_s, 6) for k in range(int(np.ceil(duration_s / step_s)))}
    grid |= {round(p.time_s, 6) for track in tracks for p in track.points}
    present = [t for t in sorted(grid) if 0 <= t < duration_s and any(a <= t <= b for a, b in spans)]
    if len(present) > budget:
        picks = np.linspace(0, len(present) - 1, budget).round().astype(int)
        return sorted({present[i] for i in picks})
    chosen = set(present)
    slices = budget - len(chosen)
    fill = [round((i + 0.5) * duration_s / slices, 6) for i in range(slices)] if slices > 0 else []
    return sorted(chosen.union(fill))


__all__ = [
    "STYLES",
    "Mark",
    "box_at",
    "describe_marks",
    "draw_marks",
    "marks_at",
    "mask_at",
    "parse_style",
    "presence_spans",
    "select_times",
]
