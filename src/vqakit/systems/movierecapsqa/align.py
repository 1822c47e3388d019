"""Recap-to-movie alignment: which movie footage each part of a recap video shows.

1. Shots in both videos (`vqakit.video.detect_shots`).
2. Each shot is described by its first and last `end_s` seconds: frames at `fps`, embedded
   with any image embedder and averaged per end (a head and a tail vector).
3. Shot similarity: each recap end is compared with the closer of the movie shot's two ends,
   and the two scores averaged, since a recap often trims a movie shot at one end. A softmax
   over movie shots (`temperature`) turns a recap shot's similarities into probabilities; the
   best movie shot is its match, and the margin between the best and second probabilities its
   confidence.
4. In-shot timing: the recap shot's sampled frames are laid onto frames sampled at `fps` over
   the whole matched movie shot, at every start and speed (0.5x-3.2x), and the best placement
   gives the movie span and its rate (movie seconds per recap second): `time_match`.
5. Chronological consistency, smoothing and implausible matches: `align_chain`.
6. Kept matches that continue one another in movie time become the aligned segments, in the
   release's `segments` shape (`fact_ids` empty).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.files import check_out, is_listing_folder, write_text_atomic, writing_folder
from vqakit.systems.movierecapsqa.align_chain import KEPT, Candidate, build_segments, choose_matches
from vqakit.systems.movierecapsqa.align_time import ShotFrames, similarities, softmax, time_match
from vqakit.video import ImageEmbedder, Shot, detect_shots, probe


@dataclass(frozen=True)
class AlignSettings:
    """Every knob of the alignment; written next to its output."""

    detector: str = "content"
    threshold: float | None = None
    min_shot_s: float = 0.5
    end_s: float = 3.0  # first and last seconds of a shot that describe it
    fps: float = 2.0  # frames per second sampled in those windows and to time a match
    short_side: int = 224  # frames are resized to this short side before embedding
    temperature: float = 0.02  # softmax temperature over cosine similarities (see align_time)
    min_margin: float = 0.2  # best minus second probability for a match to anchor the chain
    back_tolerance_s: float = 2.0  # movie time may step back this much and still be in order
    max_jump_s: float = 300.0  # a forward movie jump beyond this breaks a run
    min_run: int = 2  # off-chain matches in a run of at least this many are a moved passage
    fill_top_k: int = 5  # candidates tried when filling a gap between kept neighbours
    fill_min_probability: float = 0.05
    rate_range: tuple[float, float] = (0.2, 5.0)  # plausible movie seconds per recap second
    join_gap_s: float = 5.0  # movie (and recap) gap still inside one segment


@dataclass
class Match:
    """One recap shot and the movie span it was matched to; `status` says what became of it:
    kept, reordered (kept, off the main chain), filled (a gap filled by smoothing),
    low-confidence, off-chain or implausible."""

    recap_shot: int
    recap_start_s: float
    recap_end_s: float
    movie_shot: int
    movie_start_s: float
    movie_end_s: float
    probability: float
    margin: float
    rate: float
    status: str = "low-confidence"
    segment_id: int | None = None

    @property
    def kept(self) -> bool:
        return self.status in KEPT


@dataclass
class Alignment:
    video_id: str
    recap_path: str
    movie_path: str
    recap_duration_s: float
    movie_duration_s: float
    recap_shots: list[Shot]
    movie_shots: list[Shot]
    matches: list[Match]
    segments: list[dict[str, Any]]
    settings: AlignSettings = field(default_factory=AlignSettings)


def _make_embedder(embedder_spec: str | None, embedder: ImageEmbedder | None) -> ImageEmbedder:
    if embedder is not None:
        return embedder
    if not embedder_spec:
        raise ValueError("give an image embedder: embedder_spec (e.g. clip:<folder>) or embedder")
    from vqakit.models import ImageTextEmbedder

    return ImageTextEmbedder(embedder_spec)


def _segments(matches: list[Match], video_id: str, settings: AlignSettings) -> list[dict[str, Any]]:
    """Release-shaped segments from the kept matches; sets each match's `segment_id`."""
    spans = [
        (m.recap_start_s, m.recap_end_s, m.movie_start_s, m.movie_end_s) if m.kept else None for m in matches
    ]
    segments = []
    for number, members in enumerate(build_segments(spans, settings)):
        for r in members:
            matches[r].segment_id = number
        segments.append(
            {
                "video_id": video_id,
                "segment_id": number,
                "movie_start_time": round(min(matches[r].movie_start_s for r in members), 3),
                "movie_end_time": round(max(matches[r].movie_end_s for r in members), 3),
                "recap_start_time": round(matches[members[0]].recap_start_s, 3),
                "recap_end_time": round(matches[members[-1]].recap_end_s, 3),
                "fact_ids": [],
            }
        )
    return segments


def movie_span(alignment: Alignment, recap_start_s: float, recap_end_s: float) -> tuple[float, float] | None:
    """The movie span that a recap window shows, from the kept matches that overlap it (each
    mapped linearly over its own overlap); None when no kept match overlaps. This is how a
    recap segment cut some other way (e.g. by the builder's scenes) finds its movie segment."""
    ends: list[float] = []
    for match in alignment.matches:
        low, high = max(recap_start_s, match.recap_start_s), min(recap_end_s, match.recap_end_s)
        if not match.kept or high <= low:
            continue
        rate = (match.movie_end_s - match.movie_start_s) / max(match.recap_end_s - match.recap_start_s, 1e-6)
        ends += [match.movie_start_s + rate * (t - match.recap_start_s) for t in (low, high)]
    return (min(ends), max(ends)) if ends else None


def align_recap(
    recap_path: str | Path,
    movie_path: str | Path,
    *,
    embedder_spec: str | None = None,
    embedder: ImageEmbedder | None = None,
    video_id: str | None = None,
    settings: AlignSettings | None = None,
    recap_shots: list[Shot] | None = None,
    movie_shots: list[Shot] | None = None,
) -> Alignment:
    """Align a recap video to its movie (see the module docstring for the steps).

    The embedder is an object with `embed_images` or a spec (`clip:<folder or hub id>`). Shots
    found earlier (e.g. the builder's recap shots, or a movie's shots reused across its recaps)
    may be passed in; the others are detected with `settings.detector`."""
    settings = settings or AlignSettings()
    recap_path, movie_path = Path(recap_path), Path(movie_path)
    model = _make_embedder(embedder_spec, embedder)
    detect = {
        "detector": settings.detector,
        "threshold": settings.threshold,
        "min_shot_s": settings.min_shot_s,
    }
    frames = {"end_s": settings.end_s, "fps": settings.fps, "short_side": settings.short_side}
    recap_shots = recap_shots if recap_shots is not None else detect_shots(recap_path, **detect)
    movie_shots = movie_shots if movie_shots is not None else detect_shots(movie_path, **detect)
    recap = ShotFrames(recap_path, recap_shots, model, **frames)
    movie = ShotFrames(movie_path, movie_shots, model, **frames)
    scores = similarities(recap.ends, movie.ends)
    probabilities = softmax(scores, settings.temperature)
    order = np.argsort(-probabilities, axis=1)
    top = order[:, : max(1, settings.fill_top_k)]
    margins = [
        float(probabilities[r, order[r, 0]] - (probabilities[r, order[r, 1]] if order.shape[1] > 1 else 0.0))
        for r in range(len(recap.shots))
    ]

    def candidate(r: int, m: int) -> Candidate:
        start, end, rate = time_match(recap, r, movie, m)
        return Candidate(int(m), start, end, float(probabilities[r, m]), rate)

    # the chain needs only each shot's best match timed; the runners-up are timed only for the
    # shots it leaves out, which smoothing may fill (on a long movie most shots are never timed)
    movie.whole(top[:, 0].tolist())
    candidates = [[candidate(r, int(top[r, 0]))] for r in range(len(recap.shots))]
    loose = [
        r
        for r, (_, status) in enumerate(choose_matches(recap.shots, candidates, margins, settings))
        if status not in KEPT
    ]
    movie.whole(top[loose, 1:].ravel().tolist())
    for r in loose:
        candidates[r] += [candidate(r, int(m)) for m in top[r, 1:]]
    chosen = choose_matches(recap.shots, candidates, margins, settings)
    matches = [
        Match(
            r,
            shot.start_s,
            shot.end_s,
            c.movie_shot,
            c.movie_start_s,
            c.movie_end_s,
            c.probability,
            margins[r],
            c.rate,
            status,
        )
        for r, (shot, (c, status)) in enumerate(zip(recap.shots, chosen, strict=True))
    ]
    video_id = video_id or recap_path.stem
    segments = _segments(matches, video_id, settings)
    return Alignment(
        video_id=video_id,
        recap_path=str(recap_path),
        movie_path=str(movie_path),
        recap_duration_s=probe(recap_path).duration_s,
        movie_duration_s=probe(movie_path).duration_s,
        recap_shots=recap.shots,
        movie_shots=movie.shots,
        matches=matches,
        segments=segments,
        settings=settings,
    )


ALIGN_WRITER = "align"  # `vqakit align`, as its folder's marker records it
ALIGN_LEGACY = is_listing_folder("alignment.json", ".json", ".jsonl", ".png")  # before markers


def check_alignment_out(out_dir: str | Path, recap: str | Path, movie: str | Path) -> None:
    """Before aligning: `out_dir` must be new, empty or an earlier alignment, and hold neither
    video (`OutFolderRefused`)."""
    check_out(out_dir, ALIGN_WRITER, inputs=[recap, movie], legacy=ALIGN_LEGACY)


def write_alignment(
    alignment: Alignment, out_dir: str | Path, *, truth: list[tuple[float, float, float, float]] | None = None
) -> dict[str, Path]:
    """segments.json (release shape), matches.jsonl (one line per recap shot, with its status),
    alignment.json (settings and shots) and alignment.png (recap time against movie time), in a
    folder that is new, empty or an earlier alignment (`check_alignment_out`)."""
    inputs = [alignment.recap_path, alignment.movie_path]
    with writing_folder(out_dir, ALIGN_WRITER, inputs=inputs, legacy=ALIGN_LEGACY) as out:
        return _write_alignment(alignment, out, truth)


def _write_alignment(
    alignment: Alignment, out: Path, truth: list[tuple[float, float, float, float]] | None
) -> dict[str, Path]:
    from vqakit.systems.movierecapsqa.align_plot import plot_alignment

    paths = {
        name: out / name for name in ("segments.json", "matches.jsonl", "alignment.json", "alignment.png")
    }
    write_text_atomic(paths["segments.json"], json.dumps(alignment.segments, indent=1) + "\n")
    write_text_atomic(
        paths["matches.jsonl"], "".join(json.dumps(asdict(m)) + "\n" for m in alignment.matches)
    )
    summary = {
        "video_id": alignment.video_id,
        "recap_path": alignment.recap_path,
        "movie_path": alignment.movie_path,
        "recap_duration_s": alignment.recap_duration_s,
        "movie_duration_s": alignment.movie_duration_s,
        "settings": asdict(alignment.settings),
        "recap_shots": [asdict(s) for s in alignment.recap_shots],
        "movie_shots": [asdict(s) for s in alignment.movie_shots],
    }
    write_text_atomic(paths["alignment.json"], json.dumps(summary, indent=1) + "\n")
    plot_alignment(alignment, paths["alignment.png"], truth=truth)
    return paths
