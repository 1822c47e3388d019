"""The release's four tables: field names, id types, times, record-level problems and the writer
(the builder's output shape), on the hand-written fixture release."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vqakit.systems.movierecapsqa.tables import (
    ReleaseTables,
    TablesError,
    id_key,
    parse_time,
    read_tables,
    write_tables,
)

RELEASE = Path(__file__).resolve().parents[2] / "fixtures/movierecapsqa/release"


def test_the_fixture_release_reads_with_its_problems_listed():
    tables = read_tables(RELEASE)
    assert [len(tables.recaps), len(tables.segments), len(tables.questions), len(tables.facts)] == [
        3,
        5,
        9,
        9,
    ]
    assert tables.problems == [
        "segments.json: record 5 (video_id=nightOrbit02, segment_id=2): record: recap_start_time (28) "
        "must be before recap_end_time",
        "questions.json: record 9 (video_id=nightOrbit02, segment_id=0, question_id=2): answer: "
        "Field required",
        "facts.jsonl: line 10 (fact_id=True): fact_id: True is not an id (a whole number or a text)",
    ]
    second = tables.segments[1]
    assert (second.movie_start_time, second.movie_end_time) == (40.0, 70.5)  # "00:00:40", "00:01:10.500"
    assert (second.recap_start_time, second.recap_end_time) == (4.5, 10.0)
    assert tables.segments[3].movie_start_time is None  # not aligned to the movie


def test_ids_are_kept_as_written_and_matched_by_text():
    tables = read_tables(RELEASE)
    written_as_text = tables.questions[2]
    assert written_as_text.segment_id == "2" and tables.segments[1].segment_id == 2
    assert id_key(written_as_text.segment_id) == id_key(tables.segments[1].segment_id) == "2"
    assert written_as_text.key == "cmpRecap001.2.0"
    assert tables.facts[0].fact_id == 101 and tables.questions[0].aligned_fact_ids == [101]


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        (12, 12.0),
        (2.5, 2.5),
        ("7.25", 7.25),
        ("00:01:10.500", 70.5),
        ("1:02:03,25", 3723.25),
        ("02:03", 123.0),
    ],
)
def test_times_as_seconds_or_clock_text(value, seconds):
    assert parse_time(value) == seconds


@pytest.mark.parametrize("value", [True, -1, "soon", float("nan"), "1:2:3:4", None, [3]])
def test_times_that_are_not_times(value):
    with pytest.raises(ValueError, match="not a time"):
        parse_time(value)


def test_whole_file_problems_are_errors(tmp_path):
    with pytest.raises(
        TablesError, match=r"missing recaps\.json, segments\.json, questions\.json, facts\.json"
    ):
        read_tables(tmp_path)
    shutil.copytree(RELEASE, tmp_path / "both")
    (tmp_path / "both/facts.json").write_text("[]")
    with pytest.raises(TablesError, match=r"both facts\.json and facts\.jsonl"):
        read_tables(tmp_path / "both")
    (tmp_path / "both/facts.jsonl").unlink()
    (tmp_path / "both/recaps.json").write_text('"not a list"')
    with pytest.raises(TablesError, match=r"recaps\.json: expected a JSON list of records"):
        read_tables(tmp_path / "both")
    (tmp_path / "both/recaps.json").write_text("[{")
    with pytest.raises(TablesError, match=r"recaps\.json:1: not valid JSON"):
        read_tables(tmp_path / "both")
    (tmp_path / "both/recaps.json").unlink()
    (tmp_path / "both/recaps.json").mkdir()  # a table that is a folder is named as one, not "missing"
    with pytest.raises(TablesError, match=r"recaps\.json: a folder \(or not a regular file\)"):
        read_tables(tmp_path / "both")


def test_record_problems_and_repeats_are_listed(tmp_path):
    shutil.copytree(RELEASE, tmp_path / "release")
    records = json.loads((tmp_path / "release/recaps.json").read_text())
    by_id = {record["video_id"]: record for record in records}  # an object of records reads too
    by_id["again"] = dict(records[0])
    by_id["odd"] = ["not", "an", "object"]
    (tmp_path / "release/recaps.json").write_text(json.dumps(by_id))
    lines = (tmp_path / "release/facts.jsonl").read_text().splitlines()
    (tmp_path / "release/facts.jsonl").write_text("\n".join([*lines, "{broken", lines[0]]) + "\n")
    tables = read_tables(tmp_path / "release")
    assert len(tables.recaps) == 3 and len(tables.facts) == 9
    assert tables.problems[:2] == [
        "recaps.json: record 4 (video_id=cmpRecap001): repeats record 1; left out",
        "recaps.json: record 5: -: not a JSON object",
    ]
    assert tables.problems[-2].startswith("facts.jsonl: line 12: -: malformed JSON")
    assert tables.problems[-1] == "facts.jsonl: line 13 (fact_id=101): repeats line 1; left out"


def test_written_tables_read_back_the_same(tmp_path):
    tables = read_tables(RELEASE)
    labelled = tables.questions[0].model_copy(update={"category": "CRD", "modality": "dialogue"})
    tables.questions[0] = labelled
    (tmp_path / "facts.jsonl").write_text("stale\n")
    written = write_tables(tmp_path, tables)
    assert sorted(path.name for path in written.values()) == sorted(
        ["recaps.json", "segments.json", "questions.json", "facts.json"]
    )
    assert not (tmp_path / "facts.jsonl").exists()
    again = read_tables(tmp_path)
    assert again.problems == []
    for name in ("recaps", "segments", "questions", "facts"):
        assert getattr(again, name) == getattr(tables, name)
    first = json.loads((tmp_path / "questions.json").read_text())[0]
    assert list(first)[:8] == [
        "video_id",
        "segment_id",
        "question_id",
        "question",
        "answer",
        "verbose_question",
        "vague_answer",
        "aligned_fact_ids",
    ]
    assert first["category"] == "CRD" and again.questions[0].model_extra == {
        "category": "CRD",
        "modality": "dialogue",
    }
    segment = json.loads((tmp_path / "segments.json").read_text())[1]
    assert segment["movie_start_time"] == 40.0 and segment["segment_id"] == 2


def test_an_empty_release_writes_four_empty_tables(tmp_path):
    write_tables(tmp_path, ReleaseTables())
    assert read_tables(tmp_path) == ReleaseTables()
