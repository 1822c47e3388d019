"""`vqakit import movierecapsqa` on the fixture release: samples linked to their segments, facts,
windows and the movie subtitles; media found in folders or CSVs by each kind of key; everything
missing listed per item without stopping the import; builder-shaped tables round-trip."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import vqakit.systems.movierecapsqa  # noqa: F401  (registers the mr_ prompts)
from vqakit.cli.import_movierecapsqa import movierecapsqa
from vqakit.files import file_stem
from vqakit.schema import load_folder
from vqakit.systems.movierecapsqa.importer import import_movierecapsqa
from vqakit.systems.movierecapsqa.tables import read_tables, write_tables
from vqakit.video import VideoMediaChecker

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures/movierecapsqa"
RELEASE, MEDIA = FIXTURE / "release", FIXTURE / "media"
SAMPLE_MEDIA = Path(__file__).resolve().parents[3] / "src/vqakit/benchmarks/sample/media"
WRITTEN = [
    "cmpRecap001.1.0",
    "cmpRecap001.1.1",
    "cmpRecap001.2.0",
    "cmpRecap001.2.1",
    "cmpRecap001.5.0",
    "nightOrbit02.0.0",
    "nightOrbit02.0.1",
    "nightOrbit02.1.0",
]


def import_fixture(out: Path, **media: Path | None):
    sources = {"movies": MEDIA / "movies.csv", "subtitles": MEDIA / "subtitles.csv", **media}
    return import_movierecapsqa(
        RELEASE, MEDIA / "recaps.csv", sources["movies"], sources["subtitles"], out=out
    )


def samples_of(folder: Path) -> dict[str, dict]:
    lines = (folder / "samples.jsonl").read_text(encoding="utf-8").splitlines()
    return {sample["id"]: sample for sample in map(json.loads, lines)}


def test_import_links_each_question_to_its_segment_facts_windows_and_dialogue(tmp_path):
    report = import_fixture(tmp_path / "bench")
    assert report.written == 8 and report.found == {
        "recap videos": (2, 3),
        "movies": (1, 3),
        "movie subtitles": (2, 3),
    }
    samples = samples_of(tmp_path / "bench")
    assert list(samples) == WRITTEN
    first = samples["cmpRecap001.1.1"]
    assert first["question"] == "Why can he not pay for anything?"
    assert first["answer"] == "He left his wallet at the lab, so he wants her to pay."
    assert "choices" not in first  # open-ended
    assert first["videos"] == [
        {"path": "media/recaps/cmpRecap001.mp4", "start_s": 0.0, "end_s": 4.5},
        {"path": "media/movies/tt0000101.mp4", "start_s": 10.0, "end_s": 30.0},
        {"path": "media/recaps/cmpRecap001.mp4"},
        {"path": "media/movies/tt0000101.mp4"},
    ]
    assert first["facts"] == ["Theo says he will only go if Dana pays.", "Theo left his wallet at the lab."]
    meta = first["metadata"]
    assert meta["video_roles"] == ["recap_segment", "movie_segment", "recap", "movie"]
    assert (meta["recap_window"], meta["movie_window"]) == ([0.0, 4.5], [10.0, 30.0])
    # named after the key the file was found by: a movie name gets its slug and a digest
    campus = file_stem("Campus Crossing (2008)")
    assert campus.startswith("Campus_Crossing_2008-")
    assert meta["movie_subtitles"] == f"media/subtitles/{campus}.srt"
    assert meta["movie_name"] == "Campus Crossing (2008)"
    assert (meta["video_id"], meta["segment_id"], meta["question_id"]) == ("cmpRecap001", 1, 1)
    assert meta["question_idx"] == 1  # its position in questions.json
    assert samples["nightOrbit02.1.0"]["metadata"]["question_idx"] == 7
    assert meta["verbose_question"] == "Why does Theo want Dana to pay for the coffee?"
    assert meta["vague_answer"] == "He does not have his money with him."
    assert meta["aligned_fact_ids"] == [102, 103] and meta["segment_fact_ids"] == [101, 102, 103]
    assert meta["segment_facts"][0].startswith("Dana greets Theo") and meta["lacks"] == []
    # the segment id written as text in the question still finds segment 2
    assert samples["cmpRecap001.2.0"]["metadata"]["recap_window"] == [4.5, 10.0]
    # a recap window past the end of the user's copy is clipped to it
    clipped = samples["nightOrbit02.1.0"]["videos"][0]
    assert clipped["start_s"] == 15.0 and clipped["end_s"] == pytest.approx(30.0333, abs=1e-3)
    # the written folder loads with every media file checked
    bench = load_folder(tmp_path / "bench", VideoMediaChecker())
    assert len(bench.samples) == 8 and bench.card.protocol.method == "movierecaps"
    assert (tmp_path / f"bench/media/subtitles/{campus}.srt").read_bytes() == (
        MEDIA / "campus_crossing.srt"
    ).read_bytes()


def test_everything_missing_is_listed_per_item(tmp_path):
    report = import_fixture(tmp_path / "bench")
    assert report.lacking == {
        "cmpRecap001.2.1": ["fact 999"],
        "cmpRecap001.5.0": ["segment 5"],
        "nightOrbit02.0.0": ["movie video"],
        "nightOrbit02.0.1": ["movie video"],
        "nightOrbit02.1.0": [
            "movie video",
            "movie window (the segment is not aligned to the movie)",
            "fact 299",
        ],
    }
    assert report.left_out == {
        "lostRecap03.0.0": "no recap or movie video (lacks recap video; movie video; movie subtitles)"
    }
    assert len(report.problems) == 3  # the three records the tables could not read
    samples = samples_of(tmp_path / "bench")
    no_segment = samples["cmpRecap001.5.0"]
    assert no_segment["metadata"]["video_roles"] == ["recap", "movie"]
    assert no_segment["metadata"]["recap_window"] is None and no_segment["metadata"]["movie_window"] is None
    assert samples["nightOrbit02.1.0"]["facts"] == [
        "Clusters of city lights stand out on the night side of the Earth."
    ]
    assert samples["nightOrbit02.1.0"]["metadata"]["lacks"] == report.lacking["nightOrbit02.1.0"]


def test_without_movies_or_subtitles_the_recap_settings_still_import(tmp_path):
    report = import_fixture(tmp_path / "bench", movies=None, subtitles=None)
    assert report.written == 8 and report.found["movies"] == (0, 3)
    samples = samples_of(tmp_path / "bench")
    assert samples["cmpRecap001.1.0"]["metadata"]["video_roles"] == ["recap_segment", "recap"]
    assert "movie_subtitles" not in samples["cmpRecap001.1.0"]["metadata"]
    assert report.lacking["cmpRecap001.1.0"] == ["movie video", "movie subtitles"]


def link(folder: Path, name: str, source: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).symlink_to(source)


def test_folders_find_movies_and_subtitles_by_each_key(tmp_path):
    link(tmp_path / "recaps", "cmpRecap001.mp4", SAMPLE_MEDIA / "bikes.mp4")
    link(tmp_path / "recaps", "NIGHTORBIT02.MP4", SAMPLE_MEDIA / "world.mp4")  # letter case is ignored
    link(tmp_path / "recaps", "notes.txt", SAMPLE_MEDIA / "s1.srt")  # not a video: not looked at
    link(tmp_path / "movies", "Campus Crossing (2008).mp4", SAMPLE_MEDIA / "pedestrians.mp4")  # movie name
    link(tmp_path / "movies", "Night_Orbit_2019.mp4", SAMPLE_MEDIA / "thanks.mp4")  # name as a file name
    link(tmp_path / "subtitles", "cmpRecap001.srt", MEDIA / "campus_crossing.srt")  # recap id
    link(tmp_path / "subtitles", "tt0000202.vtt", SAMPLE_MEDIA / "s2.vtt")  # IMDb id
    report = import_movierecapsqa(
        RELEASE, tmp_path / "recaps", tmp_path / "movies", tmp_path / "subtitles", out=tmp_path / "bench"
    )
    assert report.found == {"recap videos": (2, 3), "movies": (2, 3), "movie subtitles": (2, 3)}
    samples = samples_of(tmp_path / "bench")
    night = samples["nightOrbit02.0.0"]
    assert [video["path"] for video in night["videos"]] == [
        "media/recaps/nightOrbit02.mp4",
        "media/movies/Night_Orbit_2019.mp4",
        "media/recaps/nightOrbit02.mp4",
        "media/movies/Night_Orbit_2019.mp4",
    ]
    assert night["videos"][1]["start_s"] == 2.25  # the movie window, clipped to the 7 s title card
    assert night["videos"][1]["end_s"] == pytest.approx(6.9667, abs=1e-3)
    assert night["metadata"]["movie_subtitles"] == "media/subtitles/tt0000202.vtt"
    assert samples["cmpRecap001.1.0"]["metadata"]["movie_subtitles"] == "media/subtitles/cmpRecap001.srt"
    campus = file_stem("Campus Crossing (2008)")
    assert samples["cmpRecap001.1.0"]["videos"][1]["path"] == f"media/movies/{campus}.mp4"


def test_unreadable_media_are_listed_and_skipped(tmp_path):
    (tmp_path / "media").mkdir()
    (tmp_path / "media/broken.mp4").write_bytes(b"not a video at all")
    (tmp_path / "media/broken.srt").write_text("1\n00:00:01 --> 00:00:02\nno millis\n")
    (tmp_path / "movies.csv").write_text("video_id,path\ntt0000101,media/broken.mp4\n")
    (tmp_path / "subtitles.csv").write_text(
        "key,path\ncmpRecap001,media/broken.srt\nnightOrbit02,media/gone.srt\n"
    )
    report = import_fixture(
        tmp_path / "bench", movies=tmp_path / "movies.csv", subtitles=tmp_path / "subtitles.csv"
    )
    assert report.written == 8
    assert report.lacking["cmpRecap001.1.0"] == ["movie video (unusable)", "movie subtitles (unusable)"]
    media_problems = report.problems[3:]
    assert len(media_problems) == 3
    assert media_problems[0].startswith("movie video for cmpRecap001: ") and "broken.mp4" in media_problems[0]
    assert "broken.srt: line 2: cannot read the cue timing" in media_problems[1]
    assert (
        media_problems[2].startswith("movie subtitles for nightOrbit02: ")
        and "file not found" in media_problems[2]
    )


def test_media_sources_that_cannot_be_used_are_errors(tmp_path):
    (tmp_path / "bad.csv").write_text("id,file\nx,y\n")
    with pytest.raises(ValueError, match="needs video_id \\(or key\\) and path columns"):
        import_movierecapsqa(RELEASE, tmp_path / "bad.csv", out=tmp_path / "bench")
    with pytest.raises(ValueError, match="give a folder of recap video files or a CSV"):
        import_movierecapsqa(RELEASE, tmp_path / "absent", out=tmp_path / "bench")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="no question could be written"):
        import_movierecapsqa(RELEASE, tmp_path / "empty", out=tmp_path / "bench")


def test_builder_shaped_tables_round_trip_through_the_import(tmp_path):
    import_fixture(tmp_path / "from-release")
    write_tables(tmp_path / "tables", read_tables(RELEASE))
    import_movierecapsqa(
        tmp_path / "tables",
        MEDIA / "recaps.csv",
        MEDIA / "movies.csv",
        MEDIA / "subtitles.csv",
        out=tmp_path / "from-written",
    )
    assert samples_of(tmp_path / "from-written") == samples_of(tmp_path / "from-release")


def test_the_command(tmp_path):
    runner = CliRunner()
    args = [str(RELEASE), "--recaps", str(MEDIA / "recaps.csv"), "--out", str(tmp_path / "bench")]
    args += ["--movies", str(MEDIA / "movies.csv"), "--subtitles", str(MEDIA / "subtitles.csv")]
    result = runner.invoke(movierecapsqa, args)
    assert result.exit_code == 0, result.output
    assert (
        "skipped questions.json: record 9 (video_id=nightOrbit02, segment_id=0, question_id=2)"
        in result.output
    )
    assert "left out lostRecap03.0.0: no recap or movie video" in result.output
    assert (
        "lacks movie video: 3 question(s): nightOrbit02.0.0, nightOrbit02.0.1, nightOrbit02.1.0"
        in result.output
    )
    assert "lacks fact 999: 1 question(s): cmpRecap001.2.1" in result.output
    assert (
        "found for the recaps asked about: recap videos 2/3, movies 1/3, movie subtitles 2/3" in result.output
    )
    assert f"wrote 8 samples to {tmp_path / 'bench'} (5 lacking something, 1 left out)" in result.output
    (tmp_path / "empty").mkdir()
    missing = runner.invoke(
        movierecapsqa, [str(tmp_path / "empty"), "--recaps", str(MEDIA), "--out", str(tmp_path / "x")]
    )
    assert missing.exit_code == 1 and "missing recaps.json" in missing.output


def test_a_half_written_folder_is_replaced_by_a_rerun(tmp_path):
    import_fixture(tmp_path / "bench")
    shutil.rmtree(tmp_path / "bench/media/movies")
    report = import_fixture(tmp_path / "bench")
    assert report.written == 8 and (tmp_path / "bench/media/movies/tt0000101.mp4").is_file()


def test_a_movie_window_out_of_order_leaves_the_segment_unaligned(tmp_path):
    shutil.copytree(RELEASE, tmp_path / "release")
    segments = json.loads((tmp_path / "release/segments.json").read_text())
    segments[0].update(movie_start_time=30.0, movie_end_time=10.0)
    (tmp_path / "release/segments.json").write_text(json.dumps(segments))
    report = import_movierecapsqa(
        tmp_path / "release",
        MEDIA / "recaps.csv",
        MEDIA / "movies.csv",
        MEDIA / "subtitles.csv",
        out=tmp_path / "b",
    )
    assert report.lacking["cmpRecap001.1.0"] == [
        "movie window (movie_start_time to movie_end_time is 30.0 to 10.0)"
    ]
    meta = samples_of(tmp_path / "b")["cmpRecap001.1.0"]["metadata"]
    assert meta["movie_window"] is None and meta["video_roles"] == ["recap_segment", "recap", "movie"]
