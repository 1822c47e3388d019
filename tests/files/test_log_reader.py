"""The one reader of append-only logs: a complete line that cannot be read is a problem of its
file and line wherever it is (never a place to stop, never cut); only a torn last line is left
out, and only the next append removes it; set-aside moves bad lines, byte for byte."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from vqakit.files import (
    BadLogLines,
    InputError,
    LogAppender,
    json_object,
    read_log,
    require,
    set_aside_bad_lines,
    set_aside_counts,
    set_aside_path,
)


def parse(line: bytes) -> dict:
    return require(json_object(line), {"id": int})


def lines(*records: object) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in records)


GOOD = [{"id": n} for n in range(1, 6)]


@pytest.mark.parametrize("where", [0, 2, 5])  # the start, the middle, the end (last complete line)
@pytest.mark.parametrize(
    "bad, reason",
    [
        (b'{"id": 3, "cut', "not JSON"),
        (b"{}", "id: missing"),
        (b'{"id": "3"}', "is not an integer"),
        (b"[1, 2]", "not a JSON object"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"\x00\x00\x00", "not JSON"),
    ],
)
def test_a_bad_complete_line_anywhere_is_named_and_nothing_is_lost(tmp_path, where, bad, reason):
    path = tmp_path / "log.jsonl"
    raw = lines(*GOOD[:where], bad, *GOOD[where:])
    path.write_bytes(raw)
    contents = read_log(path, parse)
    assert [r["id"] for r in contents.records] == [1, 2, 3, 4, 5]  # every other line is read
    assert contents.problems == [(where + 1, contents.problems[0][1])]
    assert reason in contents.problems[0][1]
    with pytest.raises(BadLogLines) as raised:
        contents.checked()
    assert isinstance(raised.value, InputError) and raised.value.path == path
    assert f"{path}:{where + 1}: " in str(raised.value) and "--set-aside-bad-lines" in str(raised.value)
    assert path.read_bytes() == raw  # reading changes nothing

    moved = set_aside_bad_lines(path, parse)
    assert moved is not None and moved.lines == contents.problems and moved.into == set_aside_path(path)
    assert path.read_bytes() == lines(*GOOD)  # the other lines byte for byte
    kept = json.loads(set_aside_path(path).read_text().splitlines()[0])
    held = base64.b64decode(kept["base64"]) if "base64" in kept else kept["text"].encode()
    assert held == bad and kept["line"] == where + 1 and kept["log"] == "log.jsonl"
    assert read_log(path, parse).checked() == GOOD
    assert set_aside_counts(tmp_path) == {"log.jsonl": 1}
    assert set_aside_bad_lines(path, parse) is None  # nothing more to move


def test_only_a_torn_last_line_is_left_out_and_only_the_next_append_removes_it(tmp_path):
    path = tmp_path / "log.jsonl"
    raw = lines(*GOOD) + b'{"id": 6, "par'
    path.write_bytes(raw)
    contents = read_log(path, parse)
    assert contents.checked() == GOOD and contents.torn == b'{"id": 6, "par' and contents.problems == []
    assert path.read_bytes() == raw  # left alone by the reader
    LogAppender(contents).append([json.dumps({"id": 7})])
    assert path.read_bytes() == lines(*GOOD, {"id": 7})


def test_an_unterminated_last_line_that_reads_is_a_record_and_gets_its_newline(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(*GOOD[:4]) + b'{"id": 5}')  # an editor that drops the final newline
    contents = read_log(path, parse)
    assert contents.checked() == GOOD and contents.unterminated
    LogAppender(contents).append([json.dumps({"id": 6})])
    assert path.read_bytes() == lines(*GOOD, {"id": 6})


def test_a_torn_line_that_another_writer_completed_is_not_removed(tmp_path):
    """The appender removes the torn tail it saw only while it is still the file's last line."""
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(*GOOD) + b'{"id": 6, "par')
    contents = read_log(path, parse)
    with open(path, "ab") as other:  # meanwhile: another writer appended (no lock was kept)
        other.write(b'tial"}\n')
    LogAppender(contents).append([json.dumps({"id": 7})])
    assert path.read_bytes() == lines(*GOOD) + b'{"id": 6, "partial"}\n' + lines({"id": 7})


def test_blank_lines_hold_no_record_and_are_no_problem(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\n" + lines(GOOD[0]) + b"   \n\r\n" + lines(GOOD[1]))
    assert read_log(path, parse).checked() == GOOD[:2]


def test_every_bad_line_is_listed_and_a_long_list_is_counted(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(*[b"oops"] * 30, *GOOD))
    with pytest.raises(BadLogLines) as raised:
        read_log(path, parse).checked()
    assert len(raised.value.problems) == 30 and "and 10 more line(s)" in str(raised.value)
    assert str(raised.value).startswith(f"{path}: 30 lines cannot be read; nothing was changed")


def test_a_missing_log_is_empty_and_a_folder_is_an_input_error(tmp_path):
    assert read_log(tmp_path / "none.jsonl", parse).records == []
    with pytest.raises(InputError, match="is a folder"):
        read_log(tmp_path, parse)


def test_set_aside_keeps_adding_to_the_quarantine_file(tmp_path: Path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(GOOD[0], b"bad one"))
    set_aside_bad_lines(path, parse)
    path.write_bytes(path.read_bytes() + lines(b"bad two", GOOD[1]))
    set_aside_bad_lines(path, parse)
    kept = [json.loads(line) for line in set_aside_path(path).read_text().splitlines()]
    assert [entry["text"] for entry in kept] == ["bad one", "bad two"]
    assert set_aside_counts(tmp_path) == {"log.jsonl": 2} and read_log(path, parse).checked() == GOOD[:2]


def test_a_follower_reads_on_from_where_it_stopped_with_the_files_line_numbers(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_bytes(lines(*GOOD[:2]) + b'{"id": 3, "pa')  # two records, a line being written
    first = read_log(path, parse)
    assert [r["id"] for r in first.records] == [1, 2] and first.next_line == 3
    with open(path, "ab") as handle:  # the writer finishes its line, then more lines come
        handle.write(b'rt": 1}\n' + lines(b"oops", GOOD[3]))
    more = read_log(path, parse, offset=first.end, first_line=first.next_line)
    assert [r["id"] for r in more.records] == [3, 4] and more.numbers == [3, 5]
    assert more.problems == [(4, "not JSON (Expecting value at column 1)")]
    assert more.end == path.stat().st_size and more.next_line == 6
