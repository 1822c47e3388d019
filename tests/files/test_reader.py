"""The hardened reader: every trigger of the input audit is a problem of its record (or a clean
error naming the file), never an exception from inside Python's parsers."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from vqakit.files import (
    MAX_DEPTH,
    InputError,
    Unusable,
    UnusableValueError,
    find_unusable,
    parse_json,
    read_json,
    read_rows,
    read_table,
    read_text,
    read_yaml,
    reading,
)

GOOD = {"id": "a", "start": 1.5, "text": "cut the onion"}


def jsonl(*records: object) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records)


def problems(path: Path) -> list[str]:
    return [str(problem) for problem in read_table(path).problems]


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        (b"1" + b"0" * 400, "start", "does not fit in 64 bits"),  # 10**400: unbounded JSON integer
        (str(2**63).encode(), "start", "does not fit in 64 bits"),
        (b"1e400", "start", "number 1e400 is too large"),
        (b"NaN", "start", "NaN is not a JSON number"),
        (b'"\\ud800"', "start", "unpaired surrogate"),
        (b'"a\\u0000b"', "start", "NUL character"),
        (b'"caf\xe9"', "start", "not UTF-8 text (byte 0xe9)"),
        (b"[" * 50_000 + b"]" * 50_000, "start.0.0", f"nested deeper than {MAX_DEPTH} levels"),
        (b"[" * 200_000 + b"]" * 200_000, "start.0.0", f"nested deeper than {MAX_DEPTH} levels"),
        (b"[" * 150 + b"]" * 150, "start.0.0", f"nested deeper than {MAX_DEPTH} levels"),
    ],
)
def test_a_bad_value_is_a_problem_of_its_record_only(tmp_path, value, field, words):
    bad = b'{"id": "b", "start": ' + value + b', "text": "x"}'
    path = tmp_path / "steps.jsonl"
    path.write_bytes(jsonl(GOOD, bad, GOOD))
    table = read_table(path)
    assert [r.data for r in table.rows] == [GOOD, GOOD]
    (problem,) = table.problems
    assert (problem.line, problem.field) == (2, field) and words in problem.message, problem
    assert str(problem).startswith(f"{path}:2: {field}: ")
    as_json = tmp_path / "steps.json"  # the same inside one JSON document: the record, not the file
    as_json.write_bytes(b"[" + json.dumps(GOOD).encode() + b"," + bad + b"]")
    table = read_table(as_json)
    assert [r.data for r in table.rows] == [GOOD] and table.problems[0].record == "2"
    assert str(table.problems[0]).startswith(f"{as_json}: record 2: {field}: ")


def test_deep_nesting_never_reaches_the_parser_recursion(tmp_path):
    # the format sniffing path parses too (auto on a file without a telling suffix)
    path = tmp_path / "annotations.txt"
    path.write_bytes(b'{"a": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n" + jsonl(GOOD))
    table = read_table(path)
    assert table.format == "jsonl" and [r.data for r in table.rows] == [GOOD]
    assert "nested deeper" in table.problems[0].message
    assert "nested deeper" in find_unusable(parse_json("[" * 100_000 + "]" * 100_000))[1]
    truncated = tmp_path / "truncated.json"
    truncated.write_text("[" * 100_000)
    with pytest.raises(InputError, match=r"truncated\.json:1: not valid JSON"):
        read_json(truncated)


@pytest.mark.parametrize("end", [b"\n", b"\r\n", b"\r"])
@pytest.mark.parametrize("bom", [b"", codecs.BOM_UTF8])
def test_line_ends_and_byte_order_marks(tmp_path, end, bom):
    csv_file = tmp_path / "steps.csv"
    csv_file.write_bytes(bom + end.join([b"id,text", b'a,"two' + end + b'lines"', b"b,x", b""]))
    table = read_table(csv_file)
    assert [(r.line, r.data) for r in table.records] == [
        (2, {"id": "a", "text": "two" + end.decode() + "lines"}),
        (4, {"id": "b", "text": "x"}),
    ]
    lines = tmp_path / "steps.jsonl"
    lines.write_bytes(bom + end.join([json.dumps(GOOD).encode(), b"", json.dumps(GOOD).encode(), b""]))
    assert [(r.line, r.data) for r in read_table(lines).records] == [(1, GOOD), (3, GOOD)]


def test_utf16_with_its_byte_order_mark(tmp_path):
    path = tmp_path / "labels.tsv"
    path.write_bytes("code\tname\n113\tcrème brûlée\n".encode("utf-16"))
    assert read_table(path).rows[0].data == {"code": "113", "name": "crème brûlée"}


def test_csv_cells_up_to_the_file_size_and_bad_rows(tmp_path):
    huge = "x" * 300_000  # beyond the csv module's default limit of 131,072
    path = tmp_path / "videos.csv"
    path.write_bytes(
        f"video_id,path\nbig,{huge}\nextra,a,b\n".encode() + b"latin,caf\xe9\n" + b"nul,a\x00b\nok,v.mp4\n"
    )
    table = read_table(path)
    assert [r.data["video_id"] for r in table.rows] == ["big", "ok"]
    assert len(table.rows[0].data["path"]) == 300_000
    assert problems(path) == [
        f"{path}:3: -: 3 cells, but the header has 2 columns",
        f"{path}:4: -: not UTF-8 text (byte 0xe9 at column 4)",
        f"{path}:5: -: holds a NUL character (\\u0000)",
    ]
    assert [row.cells for row in read_rows(path)][-1] == ["ok", "v.mp4"]


def test_whole_file_failures_name_the_file(tmp_path):
    (tmp_path / "clip.mp4").mkdir()  # a folder named like a file
    with pytest.raises(InputError, match=r"clip\.mp4: is a folder"):
        read_table(tmp_path / "clip.mp4")
    with pytest.raises(InputError, match=r"absent\.json: file not found"):
        read_json(tmp_path / "absent.json")
    (tmp_path / "loop.json").symlink_to(tmp_path / "loop.json")
    with pytest.raises(InputError, match=r"loop\.json: cannot be read"):
        read_json(tmp_path / "loop.json")
    (tmp_path / "dup.csv").write_text("id,id\n1,2\n")
    with pytest.raises(InputError, match=r"dup\.csv:1: column 'id' appears twice"):
        read_table(tmp_path / "dup.csv")
    (tmp_path / "bytes.txt").write_bytes(b"ok\nab\xffc\n")
    with pytest.raises(InputError, match=r"bytes\.txt:2: not UTF-8 text \(byte 0xff at column 3\)"):
        read_text(tmp_path / "bytes.txt")
    (tmp_path / "card.yaml").write_text("a: [1, 2\n")
    with pytest.raises(InputError, match=r"card\.yaml:2: not valid YAML"):
        read_yaml(tmp_path / "card.yaml")


def test_yaml_values_are_refused_like_json(tmp_path):
    path = tmp_path / "card.yaml"
    path.write_text(f"seed: {10**30}\nratio: .inf\nok: 3\n")
    data = read_yaml(path)
    assert data["ok"] == 3 and isinstance(data["seed"], Unusable) and isinstance(data["ratio"], Unusable)
    assert find_unusable(data) == ("seed", "whole number of 100 bits does not fit in 64 bits")


def test_unusable_values_refuse_to_be_used():
    value = Unusable("number 1e999 is too large")
    for use in (str, float, int, bool, lambda v: f"{v}"):
        with pytest.raises(UnusableValueError, match="1e999"):
            use(value)
    assert repr(value) == "<unusable: number 1e999 is too large>"


def test_reading_names_the_file_in_an_error_that_escapes(tmp_path):
    with pytest.raises(KeyError) as raised, reading(tmp_path / "a.json"), reading(tmp_path / "b.json"):
        raise KeyError("x")
    assert raised.value.__notes__ == [f"while reading {tmp_path / 'b.json'}"]
