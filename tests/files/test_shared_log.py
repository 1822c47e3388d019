"""A log that threads and processes read and append to at once (`SharedLog`, the studio's
people's logs), on the one reader: it follows the file as it grows (parsing only the new lines,
numbered as the file numbers them), reads it again when it was edited or replaced, and writes
through `LogAppender` (a torn last line removed, a readable unterminated one ended)."""

from __future__ import annotations

import json
import multiprocessing
from pathlib import Path

import pytest

from vqakit.files import (
    BadLogLines,
    LogContents,
    SharedLog,
    UnreadableLog,
    json_object,
    read_log,
    require,
)

PARSED: list[bytes] = []  # every line `parse` was given, in this process


def parse(line: bytes) -> dict:
    PARSED.append(line)
    return require(json_object(line), {"n": int})


def test_it_follows_a_growing_log_and_parses_each_line_once(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"n": 1}\n{"n": "two"}\n', encoding="utf-8")
    log = SharedLog(path, parse)
    PARSED.clear()
    first = log.read()
    assert [r["n"] for r in first.records] == [1] and first.problems == [(2, 'n: "two" is not an integer')]
    with path.open("a", encoding="utf-8") as handle:  # another process appends
        handle.write('{"n": 3}\n{}\n{"n": 5')  # ... and is killed in its last write
    grown = log.read()
    assert [r["n"] for r in grown.records] == [1, 3] and grown.numbers == [1, 3]
    assert grown.problems == [(2, 'n: "two" is not an integer'), (4, "n: missing")]
    assert grown.torn == b'{"n": 5'
    assert len(PARSED) == 5  # 2 lines, then 3 new ones: nothing parsed twice
    assert _as_read_whole(grown, path)


def _as_read_whole(contents: LogContents, path: Path) -> bool:
    whole = read_log(path, parse)
    return (contents.records, contents.numbers, contents.problems, contents.torn, contents.end) == (
        whole.records,
        whole.numbers,
        whole.problems,
        whole.torn,
        whole.end,
    )


def test_the_next_writer_removes_a_torn_line_and_ends_an_unterminated_record(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"n": 1}\n{"n": 2', encoding="utf-8")  # torn
    log = SharedLog(path, parse)
    assert log.read().torn == b'{"n": 2' and path.read_text().endswith('{"n": 2')  # readers leave it
    with log.appending() as writer:
        writer.append([json.dumps({"n": 3})])
        assert [r["n"] for r in writer.contents.records] == [1, 3]
    assert path.read_text() == '{"n": 1}\n{"n": 3}\n'
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"n": 4}')  # whole, but without its newline (an editor's)
    assert [r["n"] for r in log.read().records] == [1, 3, 4]
    assert [r["n"] for r in log.read().records] == [1, 3, 4]  # read again: still a record to end
    with log.appending() as writer:
        writer.append([json.dumps({"n": 5})])
    assert path.read_text() == '{"n": 1}\n{"n": 3}\n{"n": 4}\n{"n": 5}\n'
    assert _as_read_whole(log.read(), path)


def test_a_log_edited_in_place_or_replaced_is_read_again(tmp_path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"n": 1}\n{"n": "x"}\n', encoding="utf-8")
    log = SharedLog(path, parse)
    assert log.read().problems and log.generation == 1
    path.write_text('{"n": 1}\n{"n": 22}\n', encoding="utf-8")  # mended by hand, same length
    assert [r["n"] for r in log.read().records] == [1, 22] and log.generation == 2
    replacement = tmp_path / "new.jsonl"
    replacement.write_text('{"n": 7}\n', encoding="utf-8")
    replacement.replace(path)  # another file at the path (a set-aside)
    assert [r["n"] for r in log.read().records] == [7]
    path.unlink()
    assert log.read().records == []
    with log.appending() as writer:  # a new file, its folder entry synced
        writer.append(['{"n": 8}'])
    assert path.read_text() == '{"n": 8}\n'


def test_a_folder_in_place_of_the_log_is_named(tmp_path):
    path = tmp_path / "log.jsonl"
    path.mkdir()
    log = SharedLog(path, parse)
    with pytest.raises(UnreadableLog) as raised:
        log.read()
    assert raised.value.named() == [f"{path}: is a folder, not a log file"]
    with pytest.raises(UnreadableLog), log.appending():
        pass
    with pytest.raises(UnreadableLog):  # the one reader says the same of it
        read_log(path, parse)


def test_bad_log_lines_name_every_line_of_every_log(tmp_path):
    one, two = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    bad = BadLogLines(one, [(2, "not JSON")], more=[BadLogLines(two, [(1, "n: missing"), (4, "x")])])
    assert bad.named() == [f"{one}:2: not JSON", f"{two}:1: n: missing", f"{two}:4: x"]


def _append(path: str, worker: int, count: int) -> None:
    log = SharedLog(Path(path), parse)
    for number in range(count):
        with log.appending() as writer:
            mine = [r for r in writer.contents.records if r.get("w") == worker]
            assert len(mine) == number  # every earlier line of this writer is seen, once
            writer.append([json.dumps({"n": number, "w": worker})])


def test_processes_appending_at_once_see_every_line_and_lose_none(tmp_path):
    path = tmp_path / "log.jsonl"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_append, args=(str(path), w, 40)) for w in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [w.exitcode for w in workers] == [0, 0, 0]
    found = read_log(path, parse)
    assert not found.problems and sorted((r["w"], r["n"]) for r in found.records) == [
        (w, n) for w in range(3) for n in range(40)
    ]
