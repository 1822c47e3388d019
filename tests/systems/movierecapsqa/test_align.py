"""Recap-to-movie alignment on a synthetic recap with a known mapping (`synthetic_recaps`).

Measured with `ThumbnailEmbedder` (12x8 colour thumbnails; frames at 64 px short side):

| detector | segments | end-time MAE | ends within 2 s | dense MAE | recap covered |
|---|---|---|---|---|---|
| content | 6 | 0.24 s | 6/6 | 0.72 s | 0.82 |
| adaptive | 6 | 0.26 s | 6/6 | 0.78 s | 0.82 |

The two excerpts never aligned are by design: the teaser moved to the front and one of the
two swapped passages are single recap shots off the movie's order, which the chain drops (one
shot out of order is more often a look-alike than a moved scene). The dense error is larger than
the end error because a segment spans movie time the recap skipped. Thresholds allow about
twice the measured error and one segment or excerpt more lost.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synthetic_recaps import ThumbnailEmbedder, score_alignment, truth_spans, write_movie, write_recap

from vqakit.systems.movierecapsqa.align import AlignSettings, align_recap, movie_span, write_alignment
from vqakit.systems.movierecapsqa.align_chain import Candidate, build_segments, choose_matches, heaviest_chain
from vqakit.video import Shot

SEGMENT_KEYS = [
    "video_id",
    "segment_id",
    "movie_start_time",
    "movie_end_time",
    "recap_start_time",
    "recap_end_time",
    "fact_ids",
]


@pytest.fixture(scope="module")
def recut(tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("recut")
    movie = write_movie(folder / "movie.mp4")
    truth = write_recap(movie, folder / "recap.mp4")
    return folder / "recap.mp4", movie, truth


@pytest.fixture(scope="module")
def alignments(recut):
    recap, movie, _ = recut
    return {
        detector: align_recap(
            recap,
            movie,
            embedder=ThumbnailEmbedder(),
            video_id="rc1",
            settings=AlignSettings(detector=detector, short_side=64),
        )
        for detector in ("content", "adaptive")
    }


@pytest.mark.parametrize("detector", ["content", "adaptive"])
def test_alignment_recovers_the_known_mapping(recut, alignments, tmp_path, detector):
    truth = recut[2]
    alignment = alignments[detector]
    scores = score_alignment(alignment.segments, truth)
    assert scores["mae_s"] <= 0.6 and scores["within"] >= 5 / 6, scores
    assert scores["coverage"] >= 0.7 and scores["dense_mae_s"] <= 1.6, scores
    statuses = {m.status for m in alignment.matches}
    assert {"kept", "reordered"} <= statuses  # the flashback is kept as a moved passage

    paths = write_alignment(alignment, tmp_path / "out", truth=truth_spans(truth))
    segments = json.loads(paths["segments.json"].read_text())
    assert segments == alignment.segments and all(list(s) == SEGMENT_KEYS for s in segments)
    assert [s["segment_id"] for s in segments] == list(range(len(segments)))
    assert all(s["video_id"] == "rc1" and s["fact_ids"] == [] for s in segments)
    lines = paths["matches.jsonl"].read_text().splitlines()
    assert len(lines) == len(alignment.recap_shots) and json.loads(lines[0])["recap_shot"] == 0
    summary = json.loads(paths["alignment.json"].read_text())
    assert summary["settings"]["detector"] == detector and len(summary["movie_shots"]) == len(
        alignment.movie_shots
    )
    with Image.open(paths["alignment.png"]) as image:
        assert image.format == "PNG" and image.size[0] > 400


def test_movie_span_of_a_recap_window(recut, alignments):
    truth, alignment = recut[2], alignments["content"]
    excerpt = truth[3]  # workbench at 1.5x: recap 9.4-13.4 s shows movie 17-23 s
    start, end = movie_span(alignment, excerpt.recap_start_s + 0.5, excerpt.recap_end_s - 0.5)
    assert abs(start - excerpt.movie_time(excerpt.recap_start_s + 0.5)) < 1.0
    assert abs(end - excerpt.movie_time(excerpt.recap_end_s - 0.5)) < 1.0
    assert movie_span(alignment, 0.0, 2.0) is None  # the teaser is not aligned


def test_shots_found_earlier_are_reused(recut, alignments, monkeypatch):
    import vqakit.systems.movierecapsqa.align as align_module

    recap, movie, _ = recut
    earlier = alignments["content"]
    with pytest.raises(ValueError, match="give an image embedder"):
        align_recap(recap, movie)
    monkeypatch.setattr(align_module, "detect_shots", lambda *a, **k: pytest.fail("detected again"))
    again = align_recap(
        recap,
        movie,
        embedder=ThumbnailEmbedder(),
        video_id="rc1",
        settings=earlier.settings,
        recap_shots=earlier.recap_shots,
        movie_shots=earlier.movie_shots,
    )
    assert again.segments == earlier.segments


def test_cli_with_a_tiny_clip(media_dir, tmp_path):
    """The command's wiring and the clip: spec path (a random tiny CLIP aligns nothing useful)."""
    from tiny_models import build_tiny_clip

    from vqakit.cli.align import align

    recap = movie = media_dir / "bikes.mp4"
    folder = build_tiny_clip(tmp_path / "clip")
    out = tmp_path / "out"
    args = [
        str(recap),
        str(movie),
        "--image-embedder",
        f"clip:{folder}",
        "--out",
        str(out),
        "--frame-side",
        "32",
    ]
    result = CliRunner().invoke(align, [*args, "--detector", "adaptive", "--video-id", "rc9"])
    assert result.exit_code == 0, result.output
    assert "recap shots" in result.output and "segments.json" in result.output
    segments = json.loads((out / "segments.json").read_text())
    assert all(s["video_id"] == "rc9" and list(s) == SEGMENT_KEYS for s in segments)
    assert (out / "alignment.png").stat().st_size > 0
    missing = CliRunner().invoke(align, [str(recap), str(movie), "--out", str(out)])
    assert missing.exit_code == 2 and "--image-embedder" in missing.output


# --- the chain rules, on hand-made matches -------------------------------------------------


def _shots(count: int, length: float = 2.0) -> list[Shot]:
    return [Shot(i, i * length, (i + 1) * length, i * 50, (i + 1) * 50) for i in range(count)]


def _options(*starts: float, probability: float = 0.9, rate: float = 1.0) -> list[Candidate]:
    return [
        Candidate(k, s, s + 2.0 * rate, probability if k == 0 else 0.02, rate) for k, s in enumerate(starts)
    ]


def test_heaviest_chain_prefers_weight_and_tolerates_small_steps_back():
    spans = [(0, 2, 1.0), (10, 12, 1.0), (3, 5, 5.0), (4, 6, 1.0), (20, 22, 1.0)]
    assert heaviest_chain(spans, back_tolerance_s=2.0) == [0, 2, 3, 4]
    assert heaviest_chain([], back_tolerance_s=2.0) == []


def test_choose_matches_keeps_moved_passages_and_drops_lone_outliers():
    settings = AlignSettings()
    # movie starts: a chain 10, 14, 18, a lone jump to 500, 22, 26, then a moved passage 2, 4.5
    starts = [10, 14, 18, 500, 22, 26, 2, 4.5, 30]
    candidates = [_options(s) for s in starts]
    chosen = choose_matches(_shots(len(starts)), candidates, [0.8] * len(starts), settings)
    statuses = [status for _, status in chosen]
    assert statuses == ["kept", "kept", "kept", "off-chain", "kept", "kept", "reordered", "reordered", "kept"]


def test_choose_matches_fills_gaps_and_drops_implausible_rates():
    settings = AlignSettings()
    shots = _shots(4)
    unsure = [Candidate(0, 300, 302, 0.4, 1.0), Candidate(1, 13, 15, 0.3, 1.0)]
    candidates = [
        _options(10),
        unsure,  # its best guess is far off, its second fits between its neighbours
        _options(16),
        _options(20, rate=8.0),  # sure, but 2 s of recap for 16 s of movie
    ]
    chosen = choose_matches(shots, candidates, [0.8, 0.05, 0.8, 0.9], settings)
    assert [status for _, status in chosen] == ["kept", "filled", "kept", "implausible"]
    assert chosen[1][0].movie_start_s == 13
    relaxed = replace(settings, rate_range=(0.2, 10.0))
    assert choose_matches(shots, candidates, [0.8, 0.05, 0.8, 0.9], relaxed)[3][1] == "kept"


def test_segments_join_what_continues_in_movie_time():
    settings = AlignSettings(join_gap_s=5.0, back_tolerance_s=2.0)
    spans = [(0, 2, 10, 12), (2, 4, 13, 15), None, (6, 8, 16, 18), (8, 10, 40, 42), (10, 12, 41, 43)]
    assert build_segments(spans, settings) == [[0, 1, 3], [4, 5]]
