"""`vqakit import table`: the same records read from Parquet, CSV, TSV, JSONL and a `datasets`
folder give the same samples; bad cells (text the hardened reader refuses, numbers out of range
for their field, in text tables and Parquet cells alike) are `FILE:ROW:COLUMN` lines and only
their rows are left out; a missing video leaves out only its questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.schema import load_folder
from vqakit.tables import MappingError, SourceError, import_table, load_mapping

ROWS = [
    {"video": "bikes", "qid": 1, "question": "What passes by?", "a0": "a bike", "a1": "a car", "a2": "a boat",
     "answer": 0, "type": "CW", "start": 0.0, "end": 2.5, "frames": 120},
    {"video": "world", "qid": 2, "question": "What turns?", "a0": "the globe", "a1": "a wheel", "a2": "a top",
     "answer": 2, "type": "DC", "start": None, "end": None, "frames": 300},
    {"video": "bikes", "qid": 3, "question": "How many riders?", "a0": "one", "a1": "two", "a2": "three",
     "answer": 1, "type": "DC", "start": 1.0, "end": 3.0, "frames": 120},
]  # fmt: skip
MAPPING = {
    "id": "{video}-{qid}",
    "question": "question",
    "options": ["a0", "a1", "a2"],
    "answer": {"column": "answer", "kind": "index"},
    "video": "{video}.mp4",
    "start": "start",
    "end": "end",
    "groups": ["type"],
    "metadata": ["frames"],
    "subtitles": "{video}.srt",
}


def _write(rows: list[dict], path: Path) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.suffix in (".csv", ".tsv"):
        sep = "," if path.suffix == ".csv" else "\t"
        columns = list(rows[0])
        lines = [sep.join(columns)] + [
            sep.join("" if r[c] is None else str(r[c]) for c in columns) for r in rows
        ]
        path.write_text("\n".join(lines) + "\n")
    elif path.suffix == ".jsonl":
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    elif path.suffix == ".json":
        path.write_text(json.dumps(rows))
    elif path.suffix == ".parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    else:
        import datasets

        datasets.DatasetDict({"test": datasets.Dataset.from_list(rows)}).save_to_disk(str(path))
    return path


@pytest.mark.parametrize("name", ["t.parquet", "t.csv", "t.tsv", "t.jsonl", "t.json", "saved"])
def test_every_format_gives_the_same_samples(name, tmp_path, videos, mapping):
    reference = import_table(_write(ROWS, tmp_path / "ref.jsonl"), mapping, videos, tmp_path / "ref")
    report = import_table(_write(ROWS, tmp_path / name), mapping, videos, tmp_path / "bench")
    assert report.written == 3 and report.problems == [] and report.missing_videos == {}
    got = load_folder(tmp_path / "bench")
    assert got.samples == reference.benchmark.samples
    first = got.samples[0]
    assert first.id == "bikes-1" and first.choices == ["a bike", "a car", "a boat"] and first.answer == 0
    assert (first.videos[0].path, first.videos[0].start_s, first.videos[0].end_s) == (
        "media/bikes.mp4",
        0.0,
        2.5,
    )
    assert got.samples[1].subtitles == "media/world.srt" and got.samples[0].subtitles is None
    assert report.lacking_subtitles == ["bikes-1", "bikes-3"]
    assert first.metadata.model_extra == {"frames": 120, "type": "CW"}
    assert got.card.groups == ["type"]


def test_a_hub_snapshot_of_parquet_shards_is_read_by_split(tmp_path, videos, mapping):
    snapshot = tmp_path / "snapshot" / "data"
    snapshot.mkdir(parents=True)
    _write(ROWS[:2], snapshot / "test-00000-of-00002.parquet")
    _write(ROWS[2:], snapshot / "test-00001-of-00002.parquet")
    _write(ROWS[:1], snapshot / "validation-00000-of-00001.parquet")
    with pytest.raises(SourceError, match=r"2 splits .*choose one with --split"):
        import_table(tmp_path / "snapshot", mapping, videos, tmp_path / "bench")
    report = import_table(tmp_path / "snapshot", mapping, videos, tmp_path / "bench", split="test")
    assert [s.id for s in report.benchmark.samples] == ["bikes-1", "world-2", "bikes-3"]


def test_bad_cells_name_file_row_and_column_and_leave_only_their_rows_out(tmp_path, videos, mapping):
    rows = [
        dict(ROWS[0]),
        {**ROWS[1], "answer": 7},  # out of range
        {**ROWS[2], "question": ""},  # no question
        {**ROWS[2], "qid": 4, "start": "soon"},  # not seconds
        {**ROWS[2], "qid": 5, "start": 3.0, "end": 1.0},  # a window backwards
        {**ROWS[0]},  # the id again
        {**ROWS[0], "qid": 6, "video": "lost"},  # no such video
    ]
    rows = [{**row, "start": None if row["start"] is None else str(row["start"])} for row in rows]
    for name in ("t.csv", "t.parquet"):
        report = import_table(_write(rows, tmp_path / name), mapping, videos, tmp_path / f"bench-{name}")
        assert report.written == 1 and report.rows == 7
        first = 2 if name == "t.csv" else 1  # CSV rows are lines (the header is line 1)
        at = [f"{tmp_path / name}:{first + k}" for k in range(7)]
        assert report.problems == [
            f"{at[1]}:answer: 7 is out of range for 3 options (index)",
            f"{at[2]}:question: no question",
            f"{at[3]}:start: 'soon' is not a time in seconds",
            f"{at[4]}:start: the window starts (3 s) at or after its end (1 s)",
            f"{at[5]}:id: 'bikes-1' is already the id of row {first}",
        ]
        assert report.missing_videos == {"lost.mp4": ["lost-6"]}


def test_a_broken_jsonl_line_is_listed_and_the_rest_imported(tmp_path, videos, mapping):
    table = tmp_path / "t.jsonl"
    table.write_text(json.dumps(ROWS[0]) + "\n{not json\n" + json.dumps(ROWS[1]) + "\n[1, 2]\n")
    report = import_table(table, mapping, videos, tmp_path / "bench")
    assert report.written == 2
    assert report.problems == [
        f"{table}:2: malformed JSON (Expecting property name enclosed in double quotes at column 2)",
        f"{table}:4: each line must be a JSON object",
    ]


def test_option_forms_answer_kinds_and_extensions(tmp_path, videos):
    rows = [
        {"vid": "bikes", "q": "A?", "opts": ["A. red", "B. green"], "ans": "B", "id": "a"},
        {"vid": "world", "q": "B?", "opts": '["yes", "no", "maybe"]', "ans": "(C)", "id": "b"},
    ]
    mapping = {
        "id": "{id}",
        "question": "q",
        "options": "opts",
        "answer": {"column": "ans", "kind": "letter"},
        "video": "{vid}.mkv",
        "extensions": ["webm", "mp4"],
    }
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(mapping))
    report = import_table(_write(rows, tmp_path / "t.jsonl"), tmp_path / "m.yaml", videos, tmp_path / "bench")
    first, second = report.benchmark.samples
    assert first.choices == ["red", "green"] and first.answer == 1  # "A. " labels are dropped
    assert second.choices == ["yes", "no", "maybe"] and second.answer == 2
    assert first.videos[0].path == "media/bikes.mp4"  # found by another extension


def test_hidden_answers_for_a_test_split(tmp_path, videos):
    rows = [
        {"id": "a", "q": "A?", "o": ["x", "y"], "v": "bikes", "a": None},
        {"id": "b", "q": "B?", "o": ["x", "y"], "v": "bikes", "a": 1},
    ]
    mapping = {
        "id": "{id}",
        "question": "q",
        "options": "o",
        "answer": {"column": "a", "kind": "index1", "missing": "hidden"},
        "video": "{v}.mp4",
    }
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(mapping))
    report = import_table(_write(rows, tmp_path / "t.jsonl"), tmp_path / "m.yaml", videos, tmp_path / "bench")
    assert [s.answer for s in report.benchmark.samples] == [None, 0] and report.hidden == 1


def test_mapping_mistakes_are_said_before_anything_is_written(tmp_path, videos):
    (tmp_path / "m.yaml").write_text(yaml.safe_dump({**MAPPING, "question": "text"}))
    with pytest.raises(
        MappingError, match=r"question: the table has no column 'text' \(its columns: video, qid"
    ):
        import_table(_write(ROWS, tmp_path / "t.csv"), tmp_path / "m.yaml", videos, tmp_path / "bench")
    assert not (tmp_path / "bench").exists()
    (tmp_path / "bad.yaml").write_text(yaml.safe_dump({**MAPPING, "id": "{video"}))
    with pytest.raises(MappingError, match=r"bad.yaml: id: .*unpaired brace"):
        load_mapping(tmp_path / "bad.yaml")
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump({**MAPPING, "grups": ["type"]}))
    with pytest.raises(MappingError, match=r"typo\.yaml: grups: Extra inputs are not permitted"):
        load_mapping(tmp_path / "typo.yaml")
    table = _write(ROWS, tmp_path / "t.csv")
    for start in ("from", "NaN", "-1"):  # a bare start names a column or is a time in seconds
        (tmp_path / "start.yaml").write_text(yaml.safe_dump({**MAPPING, "start": start}))
        with pytest.raises(MappingError, match=rf"start\.yaml: .*start: the table has no column '{start}'"):
            import_table(table, tmp_path / "start.yaml", videos, tmp_path / "bench")
    (tmp_path / "lost.yaml").write_text(yaml.safe_dump({**MAPPING, "video": "../{video}.mp4"}))
    with pytest.raises(ValueError, match=r"t\.csv: no row could be imported with the mapping .*lost\.yaml"):
        import_table(tmp_path / "t.csv", tmp_path / "lost.yaml", videos, tmp_path / "bench")
    assert not (tmp_path / "bench").exists()


def test_the_command_lists_what_it_left_out(tmp_path, videos, mapping):
    rows = [ROWS[0], {**ROWS[1], "video": "lost"}, {**ROWS[2], "answer": "x"}]
    table = _write(rows, tmp_path / "t.csv")
    result = CliRunner().invoke(
        main,
        [
            "import",
            "table",
            str(table),
            "--map",
            str(mapping),
            "--videos",
            str(videos),
            "--out",
            str(tmp_path / "b"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"skipped {table}:4:answer: 'x' is not an index" in result.output
    assert "missing video lost.mp4 (1 question(s): lost-2)" in result.output
    assert f"wrote 1 of 3 questions to {tmp_path / 'b'} (2 left out)" in result.output


def _import(table: Path, mapping: Path, videos: Path, out: Path):
    """`vqakit import table` as a user runs it: (exit code, output)."""
    arguments = [str(table), "--map", str(mapping), "--videos", str(videos), "--out", str(out)]
    result = CliRunner().invoke(main, ["import", "table", *arguments])
    return result.exit_code, result.output


def test_a_start_beyond_any_number_is_a_problem_of_its_row(tmp_path, videos, mapping):
    table = tmp_path / "t.jsonl"
    lines = [json.dumps(row) for row in ROWS]
    lines[0] = lines[0].replace('"start": 0.0', '"start": 1' + "0" * 400)  # JSON integers are unbounded
    table.write_text("\n".join(lines) + "\n")
    code, output = _import(table, mapping, videos, tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {table}:1:start: number 100000000000...(401 digits) does not fit in 64 bits" in output
    assert "wrote 2 of 3 questions" in output and "VQAKIT_DEBUG" not in output


def test_an_unpaired_surrogate_is_a_problem_of_its_row(tmp_path, videos, mapping):
    table = tmp_path / "t.jsonl"
    lines = [json.dumps(row) for row in ROWS]
    lines[1] = lines[1].replace('"What turns?"', '"What \\ud800turns?"')
    table.write_text("\n".join(lines) + "\n")
    code, output = _import(table, mapping, videos, tmp_path / "bench")
    assert code == 0, output
    assert f"skipped {table}:2:question: holds an unpaired surrogate ('\\ud800')" in output
    assert [s.id for s in load_folder(tmp_path / "bench").samples] == ["bikes-1", "bikes-3"]


def test_a_mapping_that_is_not_utf8_names_its_file_and_line(tmp_path, videos, mapping):
    bad = tmp_path / "bad.yaml"
    bad.write_bytes(mapping.read_bytes().replace(b"question: question", b"question: qu\xffestion"))
    code, output = _import(_write(ROWS, tmp_path / "t.csv"), bad, videos, tmp_path / "bench")
    line = next(n for n, text in enumerate(bad.read_bytes().splitlines(), 1) if b"\xff" in text)
    assert code == 1 and output == f"Error: {bad}:{line}: not UTF-8 text (byte 0xff at column 13)\n"
    (tmp_path / "nul.yaml").write_text(yaml.safe_dump({**MAPPING, "question": "a\x00b"}))
    with pytest.raises(MappingError, match=r"nul\.yaml: question: holds a NUL character"):
        load_mapping(tmp_path / "nul.yaml")


def test_rows_of_a_parquet_shard_are_numbered_within_their_file(tmp_path, videos, mapping):
    snapshot = tmp_path / "snapshot"
    snapshot.mkdir()
    _write(ROWS[:2], snapshot / "test-00000-of-00002.parquet")
    second = snapshot / "test-00001-of-00002.parquet"
    _write([{**ROWS[2], "answer": 7}, {**ROWS[2], "qid": 4}], second)
    report = import_table(snapshot, mapping, videos, tmp_path / "bench")
    assert report.problems == [f"{second}:1:answer: 7 is out of range for 3 options (index)"]
    assert [s.id for s in report.benchmark.samples] == ["bikes-1", "world-2", "bikes-4"]
    (snapshot / "test-00002-of-00003.parquet").mkdir()  # a folder named like a shard
    with pytest.raises(SourceError, match=r"test-00002-of-00003\.parquet: is a folder, not a Parquet file"):
        import_table(snapshot, mapping, videos, tmp_path / "other")


def test_parquet_cells_get_the_readers_checks(tmp_path, videos, mapping):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        ROWS[0],
        {**ROWS[1], "question": "What\x00turns?"},  # valid UTF-8, but no text to keep
        {**ROWS[2], "start": float("inf")},
        {**ROWS[2], "qid": 4, "start": float("nan"), "end": float("nan")},  # a NaN, not an empty cell
        {**ROWS[2], "qid": 5, "start": -1.0},
        {**ROWS[2], "qid": 6, "start": 2.0, "end": 1.5},
        {**ROWS[2], "qid": 7, "frames": 2**64 - 1},
    ]
    table = pa.Table.from_pylist(rows, schema=pa.Table.from_pylist(ROWS).schema.set(
        list(ROWS[0]).index("frames"), pa.field("frames", pa.uint64())
    ))  # fmt: skip
    pq.write_table(table, tmp_path / "t.parquet")
    report = import_table(tmp_path / "t.parquet", mapping, videos, tmp_path / "bench")
    at = f"{tmp_path / 't.parquet'}"
    assert report.problems == [
        f"{at}:2:question: holds a NUL character (\\u0000)",
        f"{at}:3:start: number inf is not finite",
        f"{at}:4:start: number nan is not finite",
        f"{at}:7:frames: whole number of 64 bits does not fit in 64 bits",
        f"{at}:5:start: -1.0 is not a time in seconds (0 or more)",
        f"{at}:6:start: the window starts (2 s) at or after its end (1.5 s)",
    ]
    assert "bikes-4" not in {s.id for s in report.benchmark.samples}  # NaN is no "no start"


def test_start_and_end_as_templates(tmp_path, videos):
    rows = [
        {"id": "a", "q": "A?", "o": ["x", "y"], "v": "bikes", "s": "0", "e": "2", "ans": 0},
        {"id": "b", "q": "B?", "o": ["x", "y"], "v": "bikes", "s": "1", "e": "1", "ans": 1},  # empty window
        {"id": "c", "q": "C?", "o": ["x", "y"], "v": "bikes", "s": "1" + "0" * 400, "e": "9", "ans": 1},
        {"id": "d", "q": "D?", "o": ["x", "y"], "v": "bikes", "s": "soon", "e": "9", "ans": 1},
        {"id": "e", "q": "E?", "o": ["x", "y"], "v": "bikes", "s": "-3", "e": "9", "ans": 1},
    ]
    template = {"id": "{id}", "question": "q", "options": "o", "answer": {"column": "ans", "kind": "index"},
                "video": "{v}.mp4", "start": "{s}.5", "end": "{e}.25"}  # fmt: skip
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(template))
    table = _write(rows, tmp_path / "t.jsonl")
    report = import_table(table, tmp_path / "m.yaml", videos, tmp_path / "bench")
    (sample,) = report.benchmark.samples
    assert (sample.id, sample.videos[0].start_s, sample.videos[0].end_s) == ("a", 0.5, 2.25)
    assert report.problems == [
        f"{table}:2:start: the window starts (1.5 s) at or after its end (1.25 s)",
        f"{table}:3:start: '1{'0' * 55}... is not a time in seconds (0 or more)",  # 1e400 as text: inf
        f"{table}:4:start: 'soon.5' is not a time in seconds",
        f"{table}:5:start: '-3.5' is not a time in seconds (0 or more)",
    ]
    (tmp_path / "typo.yaml").write_text(yaml.safe_dump({**template, "end": "{stop}"}))
    with pytest.raises(MappingError, match=r"typo\.yaml: .*t\.jsonl: end: the table has no column 'stop'"):
        import_table(table, tmp_path / "typo.yaml", videos, tmp_path / "typo")


def test_a_tsv_table_keeps_tabs_commas_and_quotes(tmp_path, videos, mapping):
    table = tmp_path / "t.tsv"
    header = "\t".join(ROWS[0])
    row = ["bikes", "1", 'What "passes", by?', "a bike, red", "a car", "a boat", "0", "CW", "", "", "120"]
    table.write_text(f"{header}\n" + "\t".join(row) + "\n" + "\t".join(row[:3]) + "\tx\ty\tz\t9\n")
    report = import_table(table, mapping, videos, tmp_path / "bench")
    (sample,) = report.benchmark.samples
    assert sample.question == 'What "passes", by?' and sample.choices == ["a bike, red", "a car", "a boat"]
    assert report.problems == [f"{table}:3:answer: 9 is out of range for 3 options (index)"]


def test_a_row_the_sample_schema_refuses_is_left_out_alone(tmp_path, videos):
    rows = [
        {"id": "a", "q": "A?", "o": ["x", "y"], "v": "bikes", "ans": 0, "tracks": None},
        {"id": "b", "q": "B?", "o": ["x", "y"], "v": "bikes", "ans": 1, "tracks": '[{"id": "no-track"}]'},
    ]
    mapping = {"id": "{id}", "question": "q", "options": "o", "answer": {"column": "ans", "kind": "index"},
               "video": "{v}.mp4", "objects": "tracks"}  # fmt: skip
    (tmp_path / "m.yaml").write_text(yaml.safe_dump(mapping))
    table = _write(rows, tmp_path / "t.jsonl")
    report = import_table(table, tmp_path / "m.yaml", videos, tmp_path / "bench")
    assert [s.id for s in report.benchmark.samples] == ["a"]
    (problem,) = report.problems
    assert problem.startswith(f"{table}:2:objects.0.")
