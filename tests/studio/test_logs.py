"""The append-only logs people write to: a request id is written once however often it is
sent, a line cut by a kill is cut off, and writers in several threads and processes lose
nothing."""

from __future__ import annotations

import json
import multiprocessing
import threading
from pathlib import Path

import pytest

from vqakit.files import BadLogLines, UnreadableLog
from vqakit.studio import RequestLog


def lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_request_id_is_written_once(tmp_path):
    log = RequestLog(tmp_path / "alice.jsonl")
    first, written = log.append({"request_id": "r-000001", "value": 1})
    again, written_again = log.append({"request_id": "r-000001", "value": 2})
    assert written and not written_again
    assert again == first == {"request_id": "r-000001", "value": 1}
    assert lines(tmp_path / "alice.jsonl") == [first]
    # another process (a fresh log object) sees the id too
    assert RequestLog(tmp_path / "alice.jsonl").append({"request_id": "r-000001", "value": 3})[1] is False
    with pytest.raises(ValueError, match="request_id"):
        log.append({"value": 4})


def test_a_line_cut_by_a_kill_is_cut_off_before_the_next_append(tmp_path):
    path = tmp_path / "bob.jsonl"
    path.write_text('{"request_id": "r-000001", "n": 1}\n{"request_id": "r-0000', encoding="utf-8")
    log = RequestLog(path)
    assert [r["n"] for r in log.records()] == [1]  # a reader leaves the file alone
    assert path.read_text().endswith('"r-0000')
    log.append({"request_id": "r-000002", "n": 2})
    assert [r["n"] for r in lines(path)] == [1, 2]


def test_a_hand_edited_line_is_named_with_its_file_and_line_and_never_deleted(tmp_path):
    path = tmp_path / "carol.jsonl"
    text = '{"request_id": "r-000001"}\nnot json\n[1, 2]\n{"request_id": "r-000002"}\n'
    path.write_text(text, encoding="utf-8")
    log = RequestLog(path)
    assert [r["request_id"] for r in log.records()] == ["r-000001", "r-000002"]  # the lines after it too
    problems = log.problems()
    assert problems == [
        f"{path}:2: not JSON (Expecting value at column 1)",
        f"{path}:3: not a JSON object (list)",
    ]  # as every log of vqakit names a line
    with pytest.raises(BadLogLines, match=r"(?s)carol.jsonl:2: not JSON.*carol.jsonl:3") as raised:
        log.records(strict=True)
    assert raised.value.problems == [
        (2, "not JSON (Expecting value at column 1)"),
        (3, "not a JSON object (list)"),
    ]
    log.append({"request_id": "r-000003"})  # appending loses nothing ...
    with pytest.raises(BadLogLines, match=r"carol.jsonl:2"):  # ... unless the caller needs every line
        log.append({"request_id": "r-000004"}, refuse_damaged=True)
    assert path.read_text(encoding="utf-8") == text + '{"request_id": "r-000003"}\n'  # nothing deleted


def test_check_refuses_under_the_lock(tmp_path):
    log = RequestLog(tmp_path / "a.jsonl")
    log.append({"request_id": "r-000001", "sample_id": "s1"})

    def once(records):
        if any(r["sample_id"] == "s1" for r in records):
            raise RuntimeError("answered before")

    with pytest.raises(RuntimeError):
        log.append({"request_id": "r-000002", "sample_id": "s1"}, check=once)
    assert len(lines(tmp_path / "a.jsonl")) == 1


def _write(path: str, worker: int, count: int) -> None:
    log = RequestLog(Path(path))
    for i in range(count):
        # every request is sent twice, and half of them by both processes
        request = f"shared-{i:06d}" if i % 2 else f"own-{worker}-{i:06d}"
        for _ in range(2):
            log.append({"request_id": request, "worker": worker, "i": i})


def test_threads_and_processes_writing_at_once_lose_and_repeat_nothing(tmp_path):
    path = tmp_path / "shared.jsonl"
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_write, args=(str(path), w, 60)) for w in (1, 2)]
    threads = [threading.Thread(target=_write, args=(str(path), w, 60)) for w in (3, 4)]
    for worker in [*processes, *threads]:
        worker.start()
    for worker in [*processes, *threads]:
        worker.join(60)
    assert all(p.exitcode == 0 for p in processes)
    written = lines(path)
    ids = [r["request_id"] for r in written]
    assert len(ids) == len(set(ids))  # no request written twice
    expected = {f"shared-{i:06d}" for i in range(1, 60, 2)}
    expected |= {f"own-{w}-{i:06d}" for w in (1, 2, 3, 4) for i in range(0, 60, 2)}
    assert set(ids) == expected  # none lost


def test_a_line_fixed_by_hand_is_read_again(tmp_path):
    path = tmp_path / "dave.jsonl"
    path.write_text('{"request_id": "r-000001"}\n{"request_id": 5x}\n', encoding="utf-8")
    log = RequestLog(path)
    assert len(log.problems()) == 1
    path.write_text('{"request_id": "r-000001"}\n{"request_id": "r-05"}\n', encoding="utf-8")  # same length
    assert log.problems() == [] and [r["request_id"] for r in log.records()] == ["r-000001", "r-05"]
    path.unlink()
    assert log.records() == [] and log.problems() == []


def test_a_readable_last_line_without_its_newline_is_a_record_and_gets_one(tmp_path):
    path = tmp_path / "erin.jsonl"
    path.write_text('{"request_id": "r-000001"}\n{"request_id": "r-000002"}', encoding="utf-8")  # an editor's
    log = RequestLog(path)
    assert [r["request_id"] for r in log.records()] == ["r-000001", "r-000002"]
    assert log.append({"request_id": "r-000002"})[1] is False  # its request id is known
    log.append({"request_id": "r-000003"})
    assert [r["request_id"] for r in lines(path)] == ["r-000001", "r-000002", "r-000003"]


def test_values_that_cannot_be_kept_are_named_like_every_damaged_line(tmp_path):
    path = tmp_path / "frank.jsonl"
    path.write_bytes(
        b'{"request_id": "r-000001", "n": NaN}\n{"request_id": "r-000002", "t": "\\ud800"}\n'
        b'{"request_id": "r-000003", "t": "\xff"}\n{"request_id": "r-000004"}\n'
    )
    log = RequestLog(path)
    assert [r["request_id"] for r in log.records()] == ["r-000004"]
    assert [line.split(": ", 1)[0] for line in log.problems()] == [f"{path}:{n}" for n in (1, 2, 3)]
    assert "n: NaN is not a JSON number" in log.problems()[0] and "surrogate" in log.problems()[1]
    assert "not UTF-8" in log.problems()[2]


def test_a_log_that_cannot_be_opened_is_named_and_refuses_writers(tmp_path):
    path = tmp_path / "gina.jsonl"
    path.mkdir()
    log = RequestLog(path)
    assert log.records() == [] and log.problems() == [f"{path}: is a folder, not a log file"]
    with pytest.raises(UnreadableLog, match="is a folder"):
        log.records(strict=True)
    with pytest.raises(UnreadableLog, match="is a folder"):
        log.append({"request_id": "r-000001"})


def test_a_log_replaced_while_a_writer_waits_is_written_in_its_new_file(tmp_path):
    """`set_aside_bad_lines` replaces a log under the writers' lock: a writer waiting for that
    lock writes into the new file, never into the one renamed away."""
    import fcntl

    from vqakit.files import set_aside_bad_lines, set_aside_path
    from vqakit.studio._jsonlog import record_parser

    path = tmp_path / "hal.jsonl"
    path.write_text('{"request_id": "r-000001"}\nnot json\n', encoding="utf-8")
    log = RequestLog(path)
    assert len(log.problems()) == 1
    done = threading.Event()
    with open(path, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)  # as set_aside_bad_lines holds it
        writer = threading.Thread(target=lambda: (log.append({"request_id": "r-000002"}), done.set()))
        writer.start()
        assert not done.wait(0.5)  # waits for the lock
        kept = path.with_name("kept.jsonl")
        kept.write_text('{"request_id": "r-000001"}\n', encoding="utf-8")
        kept.replace(path)  # the log replaced, as set_aside_bad_lines does
    writer.join(10)
    assert done.is_set()
    assert [r["request_id"] for r in lines(path)] == ["r-000001", "r-000002"]
    assert log.problems() == []
    path.write_text('{"request_id": "r-000001"}\n[1]\n{"request_id": "r-000002"}\n', encoding="utf-8")
    moved = set_aside_bad_lines(path, record_parser(None))
    assert moved is not None and moved.lines == [(2, "not a JSON object (list)")]
    assert log.problems() == [] and log.append({"request_id": "r-000002"})[1] is False
    assert json.loads(set_aside_path(path).read_text())["text"] == "[1]"
