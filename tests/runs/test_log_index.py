"""A run folder's logs read as indexes of their latest lines: the same records, in the same order,
as reading the logs whole; and the prediction log's outcomes kept one byte a sample."""

from __future__ import annotations

import json

import numpy as np
import pytest

import vqakit.files._logs as logs
from vqakit.files import BadLogLines, LogReader, json_object, read_log
from vqakit.runs import (
    JsonlRows,
    JudgmentIndex,
    PredictionIndex,
    PredictionLog,
    RecordIndex,
    paired,
    parse_judgment,
    parse_prediction,
    with_records,
)
from vqakit.schema import Prediction, Sample, sample_keys


def _predictions(path):
    lines = [
        Prediction(sample_id="b", method="m", reply="first"),
        Prediction.failed("a", "m", "server", "500"),
        Prediction(sample_id="c", method="m", reply="ünïcode \u2028 ✓", choice=1),
        Prediction(sample_id="a", method="m", reply="retried", choice=0),
        Prediction.not_applicable("d", "m", "MCQ only"),
        Prediction(sample_id="b", method="m", reply="second"),
    ]
    path.write_text("".join(p.model_dump_json() + "\n" for p in lines) + '{"sample_id": "cut')
    return lines


def test_a_prediction_index_reads_what_the_whole_log_holds(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "CHUNK", 7)  # lines cut across many reads
    path = tmp_path / "predictions.jsonl"
    _predictions(path)
    whole = {p.sample_id: p for p in read_log(path, parse_prediction).checked()}
    index = PredictionIndex(path)
    assert list(index) == list(whole) == ["b", "a", "c", "d"]  # keys in order of their first line
    assert dict(index.items()) == whole and list(index.values()) == list(whole.values())
    assert len(index) == 4 and "a" in index and "cut" not in index and index.get("zz") is None
    assert index["b"].reply == "second" and index["a"].choice == 0
    keys = sample_keys([Sample(id=i, question="?", answer="x", videos=[]) for i in ("c", "zz", "b")])
    assert list(with_records(_samples("c", "zz", "b"), index)) == [True, False, True]
    assert [p.reply if p else None for _, p in paired(_samples("c", "zz", "b"), index)] == [
        "ünïcode \u2028 ✓",
        None,
        "second",
    ]
    assert list(index.has(keys.digests)) == [True, False, True]
    assert path.read_bytes().endswith(b'"cut')  # a reader changes nothing


def _samples(*ids):
    return [Sample(id=i, question="?", answer="x", videos=[]) for i in ids]


def test_judgments_and_rows(tmp_path):
    path = tmp_path / "judgments.jsonl"
    records = [
        {"sample_id": "x", "kind": "open", "raw": "no", "error": "server: 500"},
        {"sample_id": "y", "kind": "extract", "raw": "B", "error": None},
        {"sample_id": "x", "kind": "extract", "raw": "\ud800 lone", "error": None},  # json.dumps escapes it
        {"sample_id": "x", "kind": "open", "raw": "yes", "error": None},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    whole: dict = {}
    for record in read_log(path, parse_judgment).checked():
        whole.setdefault(record["sample_id"], {})[record["kind"]] = record
    index = JudgmentIndex(path)
    assert dict(index.items()) == whole and list(index["x"]) == ["open", "extract"] and index.records == 3
    rows = JsonlRows(path)
    assert list(rows) == records and rows[2] == records[2] and rows[-1] == records[-1] and len(rows) == 4
    assert RecordIndex(path)["x"] == records[3]


def test_a_prediction_log_keyed_by_position_knows_what_the_full_log_knows(tmp_path):
    path = tmp_path / "predictions.jsonl"
    _predictions(path)
    keys = sample_keys(_samples("a", "b", "c", "d", "never"))
    for retry in (True, False):
        full = PredictionLog(path, retry_errors=retry)
        keyed = PredictionLog(path, retry_errors=retry, keys=keys)
        assert len(keyed.outcomes) == 5 and keyed.finished == {}
        for sample in ("a", "b", "c", "d", "never"):
            assert keyed.done(sample) == full.done(sample) and keyed.failed(sample) == full.failed(sample)
            assert keyed.skipped(sample) == full.skipped(sample)
        assert list(keyed.done_mask()) == [full.done(s) for s in ("a", "b", "c", "d", "never")]
        keyed.append(Prediction.failed("never", "m", "server", "500"))
        assert keyed.failed("never") and keyed.done("never") != retry
        full.close()
        keyed.close()
        path.write_bytes(path.read_bytes().rsplit(b"\n", 2)[0] + b"\n")  # drop the line just added
    assert not path.read_bytes().endswith(b'"cut')  # the appender cut the torn line
    assert list(np.flatnonzero(PredictionLog(path, keys=keys).skipped_mask())) == [3]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"n": 1}\n{"n": 22}\n\n  \n{"n"',  # blank lines, a torn last line
        b'{"n": 1}\r\nnot json\n{"n": 3}\n[1]\n{"n": 5}',  # problems in the middle; readable unterminated end
        b'{"n": 1}\n\xff\xfe\n{"n": 3}\n   ',  # bytes that are not UTF-8; blanks at the end
        b"",
        b'{"n": 1}\n',
    ],
)
def test_the_streamed_log_reads_what_the_whole_file_reader_reads(tmp_path, monkeypatch, raw):
    """`LogReader` in parts of 5 bytes gives the records, problems, torn end, `end` and
    `next_line` of reading the whole file at once (the policy of `vqakit.files._logs`)."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(raw)
    whole = {"records": [], "problems": [], "torn": b"", "end": len(raw), "unterminated": False}
    for number, start, stop, record, problem in logs.parse_lines(raw, json_object):
        last = stop == len(raw) and not raw.endswith(b"\n")
        if problem is not None and last:
            whole["torn"], whole["end"] = raw[start:], start
        elif problem is not None:
            whole["problems"].append((number, problem))
        else:
            whole["records"].append((start, number, record))
            whole["unterminated"] = last
    monkeypatch.setattr(logs, "CHUNK", 5)
    reader = LogReader(path, json_object)
    streamed = list(reader)
    assert streamed == whole["records"]
    assert (reader.problems, reader.torn, reader.end, reader.unterminated) == (
        whole["problems"],
        whole["torn"],
        whole["end"],
        whole["unterminated"],
    )
    assert reader.next_line == 1 + raw[: whole["end"]].count(b"\n")
    contents = read_log(path, json_object)
    assert contents.records == [record for _, _, record in streamed] and contents.end == reader.end
    if whole["problems"]:
        with pytest.raises(BadLogLines):
            reader.checked()
