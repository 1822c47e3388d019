"""`vqakit import table` survives every single bad file and reads numbers alike in every format:
a subtitle file that cannot be read is a problem of the rows that use it, named by its real
path (never the staging folder's); a binary Parquet cell is read as UTF-8 text or refused with
FILE:ROW:COLUMN (never shown as `b'...'`); a CSV answer index `1.0` is the index JSON's `1.0`
is; a Parquet NaN start is a problem, not "no start"."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.schema import load_folder
from vqakit.tables import ImportHooks, import_rows, import_table, load_mapping, read_source

ROWS = [
    {"video": "bikes", "qid": 1, "question": "What passes by?", "a0": "a bike", "a1": "a car", "answer": 0},
    {"video": "world", "qid": 2, "question": "What turns?", "a0": "the globe", "a1": "a wheel", "answer": 1},
    {"video": "bikes", "qid": 3, "question": "How many riders?", "a0": "one", "a1": "two", "answer": 1},
]
MAPPING = {
    "id": "{video}-{qid}",
    "question": "question",
    "options": ["a0", "a1"],
    "answer": {"column": "answer", "kind": "index"},
    "video": "{video}.mp4",
    "subtitles": "{video}.srt",
}


def _parquet(rows: list[dict], path: Path, schema=None) -> Path:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    return path


def test_a_subtitle_file_that_cannot_be_read_fails_its_rows_only_named_by_its_path(tmp_path, videos, mapping):
    bad = videos / "bikes.srt"
    bad.write_text("1\n00:00:01,000 --> 00:00:02,000\nhello\n\n2\n00:00:03 --> later\nworld\n")
    table = tmp_path / "t.jsonl"
    table.write_text("".join(json.dumps(row) + "\n" for row in ROWS))
    result = CliRunner().invoke(
        main, ["import", "table", str(table), "--map", str(mapping), "--videos", str(videos),
               "--out", str(tmp_path / "bench")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    for row in (1, 3):
        assert f"{table}:{row}:subtitles: {bad}: line 6: cannot read the cue timing" in result.output
    assert ".staging" not in result.output and ".subtitles." not in result.output
    assert [s.id for s in load_folder(tmp_path / "bench").samples] == ["world-2"]


def test_a_conversion_that_gives_unreadable_subtitles_names_the_source_file(tmp_path, videos, mapping):
    """A preset's hook whose SRT does not parse (as LongVideoBench's did for a cue holding
    `-->`): the rows using that file are left out, named by the file the hook read."""
    cues = videos / "bikes.srt"
    cues.write_text("the release's own subtitle format\n")
    table = tmp_path / "t.jsonl"
    table.write_text("".join(json.dumps(row) + "\n" for row in ROWS))

    def convert(path: Path, row: dict) -> str:
        if path.name == "bikes.srt":
            return "1\n00:00:01,000 --> 00:00:02,000\nsee a --> b\n"
        return path.read_text()

    report = import_rows(
        read_source(table),
        load_mapping(mapping),
        videos,
        tmp_path / "bench",
        hooks=ImportHooks(subtitles=convert),
    )
    assert report.written == 1
    assert report.problems == [
        f"{table}:{row}:subtitles: {cues}: line 3: cannot read the cue timing 'see a --> b'" for row in (1, 3)
    ]


def test_binary_parquet_cells_are_utf8_text_or_refused(tmp_path, videos, mapping):
    import pyarrow as pa

    rows = [
        {**row, "question": row["question"].encode(), "a0": row["a0"].encode(), "a1": row["a1"].encode()}
        for row in ROWS
    ]
    rows[1]["question"] = b"What \xfft turns?"
    rows[2]["a1"] = b"tw\xc3"
    schema = pa.schema([(name, pa.binary() if name in ("question", "a0", "a1") else pa.infer_type([value]))
                        for name, value in ROWS[0].items()])  # fmt: skip
    table = _parquet(rows, tmp_path / "t.parquet", schema)
    report = import_table(table, mapping, videos, tmp_path / "bench")
    assert report.problems == [
        f"{table}:2:question: a binary cell that is not UTF-8 text (byte 0xff at 5), not a text",
        f"{table}:3:a1: a binary cell that is not UTF-8 text (byte 0xc3 at 2), not a text",
    ]
    (sample,) = report.benchmark.samples
    assert (sample.question, sample.choices) == ("What passes by?", ["a bike", "a car"])
    assert "b'" not in (tmp_path / "bench/samples.jsonl").read_text()


def test_an_unread_binary_column_does_not_refuse_a_row(tmp_path, videos, mapping):
    """A binary column the mapping does not read (a thumbnail, say) is no problem."""
    rows = [{**row, "thumbnail": b"\x89PNG\r\n\x1a\n\xff"} for row in ROWS]
    report = import_table(_parquet(rows, tmp_path / "t.parquet"), mapping, videos, tmp_path / "bench")
    assert report.written == 3 and report.problems == []


def test_an_answer_index_reads_alike_in_csv_json_and_parquet(tmp_path, videos, mapping):
    written = {}
    for name in ("t.csv", "t.jsonl", "t.parquet"):
        rows = [{**row, "answer": float(row["answer"])} for row in ROWS]  # 0.0, 1.0, 1.0
        path = tmp_path / name
        if name.endswith(".csv"):
            columns = list(rows[0])
            path.write_text(",".join(columns) + "\n" + "".join(
                ",".join(str(row[c]) for c in columns) + "\n" for row in rows
            ))  # fmt: skip
            assert "1.0" in path.read_text()
        elif name.endswith(".jsonl"):
            path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        else:
            _parquet(rows, path)
        report = import_table(path, mapping, videos, tmp_path / f"bench-{name}")
        assert report.problems == [], (name, report.problems)
        written[name] = [(s.id, s.answer) for s in report.benchmark.samples]
    assert written["t.csv"] == written["t.jsonl"] == written["t.parquet"]
    assert written["t.csv"] == [("bikes-1", 0), ("world-2", 1), ("bikes-3", 1)]
    table = tmp_path / "half.csv"
    table.write_text("video,qid,question,a0,a1,answer\nbikes,1,Q?,x,y,1.5\nbikes,2,Q?,x,y,1e0\n")
    report = import_table(table, mapping, videos, tmp_path / "half")
    assert report.problems == [f"{table}:2:answer: '1.5' is not an index"]
    assert [s.answer for s in report.benchmark.samples] == [1]


def test_a_nan_start_in_parquet_is_a_problem_not_no_start(tmp_path, videos):
    mapping = tmp_path / "map.yaml"
    mapping.write_text(yaml.safe_dump({**MAPPING, "start": "start", "end": "end"}))
    rows = [{**row, "start": 0.5, "end": 2.0} for row in ROWS]
    rows[1]["start"] = float("nan")
    rows[2]["start"] = None  # an empty cell: no start
    table = _parquet(rows, tmp_path / "t.parquet")
    report = import_table(table, mapping, videos, tmp_path / "bench")
    assert report.problems == [f"{table}:2:start: number nan is not finite"]
    assert [(s.id, s.videos[0].start_s) for s in report.benchmark.samples] == [
        ("bikes-1", 0.5),
        ("bikes-3", None),
    ]
