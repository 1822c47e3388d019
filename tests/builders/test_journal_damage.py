"""A build journal (calls.jsonl) damaged at the start, middle or end: a resumed build stops before
its first model step naming the line, and cuts nothing (before, reading stopped at the first bad
line and the next append truncated the file there, so every step journaled after it was asked of
the model again). Set aside on request, the line is kept beside the journal and its step asked
again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vqakit.builders import BuildJournal, set_aside_build_journal
from vqakit.files import BadLogLines, set_aside_path
from vqakit.video import write_index_clip


class Reached(BaseException):
    """The build got past its inputs and journal to its first model step."""


class StopAtFirstCall:
    """Test double for a builder's models and embedders: the first call ends the build."""

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise Reached

    def embed(self, *args: Any, **kwargs: Any) -> Any:
        raise Reached

    async def aclose(self) -> None:
        pass


def journal_with_steps(folder: Path, count: int = 5) -> bytes:
    journal = BuildJournal(folder)
    for number in range(count):
        journal.put(BuildJournal.key("caption", f"item{number}", "request"), {"text": f"step {number}"})
    return (folder / "calls.jsonl").read_bytes()


@pytest.mark.parametrize("where", [1, 3, 5])
@pytest.mark.parametrize("bad", [b'{"key": "caption:x:1"}', b'{"key": 3, "result": 1}', b"\x00\x00", b"{"])
def test_a_damaged_journal_line_stops_the_build_naming_it(tmp_path, where, bad):
    raw = journal_with_steps(tmp_path)
    lines = raw.splitlines(keepends=True)
    lines[where - 1] = bad + b"\n"
    (tmp_path / "calls.jsonl").write_bytes(b"".join(lines))
    with pytest.raises(BadLogLines) as raised:
        BuildJournal(tmp_path)
    assert raised.value.problems[0][0] == where and f"calls.jsonl:{where}: " in str(raised.value)
    assert (tmp_path / "calls.jsonl").read_bytes() == b"".join(lines)  # nothing cut


def test_a_torn_last_step_is_left_out_and_removed_by_the_next_step(tmp_path):
    raw = journal_with_steps(tmp_path, 3)
    (tmp_path / "calls.jsonl").write_bytes(raw + b'{"key": "caption:item3:')
    journal = BuildJournal(tmp_path)
    assert len(journal.results) == 3
    journal.put("caption:item3:abc", {"text": "again"})
    assert (
        tmp_path / "calls.jsonl"
    ).read_bytes() == raw + b'{"key": "caption:item3:abc", "result": {"text": "again"}}\n'


@pytest.fixture
def egofact_inputs(tmp_path: Path) -> Path:
    for name in ("bikeA", "bikeB"):
        write_index_clip(tmp_path / f"videos/{name}.mp4", seconds=20, fps=2, width=64, height=48, gop=10)
    events = [
        {"video": f"bike{v}.mp4", "time_s": t, "text": f"C {verb} the wrench"}
        for v in "AB"
        for t, verb in ((3.0, "picks up"), (8.5, "turns"), (15.0, "puts down"))
    ]
    (tmp_path / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    passages = [
        {"id": f"p{i}", "title": "Wrenches", "text": f"How to hold a wrench, part {i}."} for i in range(3)
    ]
    (tmp_path / "passages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in passages))
    return tmp_path


def build(inputs: Path) -> None:
    from vqakit.systems.egofact.builder import build_egofact

    stop = StopAtFirstCall()
    build_egofact(
        inputs / "videos", inputs / "events.jsonl", inputs / "passages.jsonl", inputs / "out",
        llm=stop, vlm=stop, text_embedder=stop,
    )  # fmt: skip


def test_a_resumed_build_refuses_a_damaged_journal_and_goes_on_once_it_is_set_aside(egofact_inputs):
    out = egofact_inputs / "out"
    with pytest.raises(Reached):
        build(egofact_inputs)  # the folder is the builder's now, marked before its first step
    raw = journal_with_steps(out / "build")
    lines = raw.splitlines(keepends=True)
    lines[2] = b'{"key": "caption:item2:x", "result": 1, "extra": true}\n'
    damaged = b"".join(lines)
    (out / "build/calls.jsonl").write_bytes(damaged)
    with pytest.raises(BadLogLines, match=r"calls\.jsonl:3: extra: not a field of a journal line"):
        build(egofact_inputs)
    assert (out / "build/calls.jsonl").read_bytes() == damaged

    moved = set_aside_build_journal(out, "build egofact")
    assert moved is not None and [line for line, _ in moved.lines] == [3]
    assert (out / "build/calls.jsonl").read_bytes() == b"".join(lines[:2] + lines[3:])
    assert json.loads(set_aside_path(out / "build/calls.jsonl").read_text())["line"] == 3
    with pytest.raises(Reached):
        build(egofact_inputs)
