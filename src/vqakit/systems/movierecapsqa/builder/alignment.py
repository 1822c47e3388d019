"""Stage 2: each segment of a recap that comes with a movie gets its movie window.

The recap is aligned to its movie shot by shot (`align_recap`: kept, reordered and filled
matches). A segment's movie window comes from the kept matches that overlap it: each overlap is
mapped into the movie at its match's rate; overlapping or close (within the alignment's
`join_gap_s`) movie spans form groups, and the group covering the most recap time is the
window. A segment covered by less than `min_coverage` of its length is not aligned: it stays in
the build without movie times (null `movie_*_time`, as in the release), and the drop log says
why. The window is on the movie video's clock, which the movie subtitles are assumed to share.

Alignment runs before the model stages because the labels (stage 6) read the movie dialogue of
each segment. Its outcome is kept in `build/alignment/<video_id>.json` (reused when the files
and settings are unchanged), with the alignment's own files (segments, matches, plot) in
`build/alignment/<video_id>/`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from vqakit.files import write_text_atomic
from vqakit.systems.movierecapsqa.align import AlignSettings, align_recap, write_alignment
from vqakit.systems.movierecapsqa.builder.context import BuildContext, RecapInput, RecapSegment
from vqakit.video import VideoError

ALIGNMENT = "2 alignment"
FOLDER = "alignment"

Span = tuple[float, float, float, float]  # recap start, recap end, movie start, movie end


def movie_window(
    spans: list[Span], start_s: float, end_s: float, *, join_gap_s: float, min_coverage: float
) -> tuple[float, float] | str:
    """The movie window of the recap window [start_s, end_s), or why it has none."""
    pieces: list[tuple[float, float, float]] = []  # movie start, movie end, recap seconds
    for recap_start, recap_end, movie_start, movie_end in spans:
        low, high = max(start_s, recap_start), min(end_s, recap_end)
        if high <= low:
            continue
        rate = (movie_end - movie_start) / max(recap_end - recap_start, 1e-6)
        pieces.append(
            (movie_start + (low - recap_start) * rate, movie_start + (high - recap_start) * rate, high - low)
        )
    if not pieces:
        return "not aligned: no confident match in the segment"
    groups: list[list[float]] = []  # [movie start, movie end, recap seconds]
    for low, high, seconds in sorted(pieces):
        if groups and low <= groups[-1][1] + join_gap_s:
            groups[-1][1] = max(groups[-1][1], high)
            groups[-1][2] += seconds
        else:
            groups.append([low, high, seconds])
    best = max(groups, key=lambda group: group[2])
    coverage = best[2] / max(end_s - start_s, 1e-6)
    if coverage < min_coverage:
        return f"not aligned: matches cover {coverage:.0%} of the segment (need {min_coverage:.0%})"
    if best[1] - best[0] <= 0:
        return "not aligned: the matches give an empty movie span"
    return round(best[0], 3), round(best[1], 3)


def _key(recap: RecapInput, settings: AlignSettings, embedder: Any) -> str:
    files = []
    for path in (recap.recap, recap.movie):
        stat = Path(path).stat()  # type: ignore[arg-type]
        files.append([str(path), stat.st_size, stat.st_mtime_ns])
    name = str(getattr(embedder, "spec", type(embedder).__name__))
    text = json.dumps([files, asdict(settings), name], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def recap_spans(ctx: BuildContext, recap: RecapInput, settings: AlignSettings) -> tuple[list[Span], bool]:
    """(kept matches as spans, reused): from the cache when the key matches, else aligned now."""
    key = _key(recap, settings, ctx.embedder)
    cache = ctx.folder / FOLDER / f"{recap.video_id}.json"
    if cache.is_file():
        known = json.loads(cache.read_text(encoding="utf-8"))
        if known.get("key") == key:
            return [tuple(span) for span in known["spans"]], True  # type: ignore[misc]
    alignment = align_recap(
        recap.recap,
        recap.movie,
        embedder=ctx.embedder,
        video_id=recap.video_id,
        settings=settings,  # type: ignore[arg-type]
    )
    write_alignment(alignment, ctx.folder / FOLDER / recap.video_id)
    spans = [
        (m.recap_start_s, m.recap_end_s, m.movie_start_s, m.movie_end_s) for m in alignment.matches if m.kept
    ]
    write_text_atomic(cache, json.dumps({"key": key, "spans": spans}, indent=1) + "\n")
    return spans, False


def _why_not(recap: RecapInput) -> str | None:
    if recap.movie is not None and not recap.movie.is_file():
        return f"not aligned: missing movie: {recap.movie}"
    return None


def align_segments(ctx: BuildContext, segments: list[RecapSegment]) -> list[RecapSegment]:
    """Stage 2: movie windows for the segments of recaps that have a movie. Returns every
    segment (an unaligned one keeps `movie_window` None)."""
    with_movie = [segment for segment in segments if segment.recap.movie is not None]
    if not with_movie:
        ctx.log.note("no movie given: alignment skipped, movie_*_time are null")
        ctx.log.close(ALIGNMENT, "segments -> aligned segments", 0, 0)
        return segments
    settings = AlignSettings(detector=ctx.config.detector, threshold=ctx.config.threshold)
    by_recap: dict[str, list[RecapSegment]] = {}
    for segment in with_movie:
        by_recap.setdefault(segment.recap.video_id, []).append(segment)
    aligned = 0
    for video_id, members in by_recap.items():
        recap = members[0].recap
        why = _why_not(recap)
        spans: list[Span] = []
        if why is None:
            try:
                spans, reused = recap_spans(ctx, recap, settings)
            except VideoError as error:
                why = f"not aligned: unreadable video: {error}"
            else:
                if reused:
                    ctx.log.note(f"{video_id}: alignment reused from build/{FOLDER}/{video_id}.json")
        for segment in members:
            found = why or movie_window(
                spans,
                segment.start_s,
                segment.end_s,
                join_gap_s=settings.join_gap_s,
                min_coverage=ctx.config.min_coverage,
            )
            if isinstance(found, str):
                ctx.log.drop(ALIGNMENT, segment.id, found + " (kept without movie times)")
            else:
                segment.movie_window = found
                aligned += 1
    ctx.log.close(ALIGNMENT, "segments -> aligned segments", len(with_movie), aligned)
    return segments
