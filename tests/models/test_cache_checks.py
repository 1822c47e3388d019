"""Only replies that pass their caller's checks are cached or served from the cache: a judge's
reply without a verdict, or a step's reply that is not the JSON asked for, is kept in the record
for diagnosis, and the rerun after the server is fixed sends new requests (real loopback server,
real SQLite cache)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from click.testing import CliRunner
from fake_server import FakeServer
from pydantic import BaseModel

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.models import Message, Model, ResponseCache, complete_structured


def test_a_reply_the_check_rejects_is_neither_cached_nor_served(tmp_path: Path):
    cache = ResponseCache(tmp_path / "cache.sqlite")

    def verdict(completion):
        return None if completion.text.startswith("yes") else "no verdict"

    with FakeServer(default="ok:perhaps") as server:
        model = Model(f"openai-compatible:{server.url}#judge", cache=cache)
        first = model.complete_sync([Message.user("same?")], check=verdict)
        again = model.complete_sync([Message.user("same?")], check=verdict)
        assert first.text == "perhaps" and not again.cached
        assert len(server.requests) == 2 and cache.stats()["entries"] == 0
        server.default = "ok:yes, both say a knife"
        fixed = model.complete_sync([Message.user("same?")], check=verdict)
        served = model.complete_sync([Message.user("same?")], check=verdict)
    assert not fixed.cached and served.cached and served.text == fixed.text
    assert len(server.requests) == 3 and cache.stats()["entries"] == 1


def test_a_bad_reply_cached_before_is_not_served(tmp_path: Path):
    """A cache filled by an older version (which stored every reply) does not pin a bad reply."""
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeServer(default="ok:perhaps") as server:
        model = Model(f"openai-compatible:{server.url}#judge", cache=cache)
        model.complete_sync([Message.user("same?")])  # no check: cached, as before
        server.default = "ok:yes"
        checked = model.complete_sync(
            [Message.user("same?")], check=lambda c: None if c.text == "yes" else "no verdict"
        )
    assert checked.text == "yes" and not checked.cached and len(server.requests) == 2


class Steps(BaseModel):
    steps: list[str]


def test_structured_replies_are_cached_only_when_valid(tmp_path: Path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeServer(default="ok:not json at all") as server:
        model = Model(f"openai-compatible:{server.url}#builder", cache=cache)
        ask = [Message.user("list the steps")]
        value, completion = asyncio.run(complete_structured(model, ask, Steps, max_repairs=1))
        assert value is None and completion.error.type == "invalid_output"
        assert completion.text == "not json at all"  # kept for diagnosis
        assert cache.stats()["entries"] == 0
        sent = len(server.requests)
        server.default = 'ok:{"steps": ["cut", "fry"]}'
        value, _ = asyncio.run(complete_structured(model, ask, Steps, max_repairs=1))
        assert value == Steps(steps=["cut", "fry"]) and len(server.requests) == sent + 1
        value, again = asyncio.run(complete_structured(model, ask, Steps, max_repairs=1))
    assert again.cached and len(server.requests) == sent + 1


def test_a_broken_then_fixed_judge_server_is_asked_again_on_the_rerun(tmp_path: Path):
    """`vqakit eval` with an open-ended judge whose server first replies without a verdict: the
    judgments fail (the reply kept in judgments.jsonl), and after the server is fixed the same
    command sends the judge's requests again and scores the answers."""
    open_ended = [s for s in load_benchmark("sample").samples if not s.is_mcq]
    run = tmp_path / "run"
    with FakeServer(default="ok:Answer: B") as model, FakeServer(default="ok:it depends") as judge:
        command = [
            "eval", "sample", "--model", f"openai-compatible:{model.url}#m",
            "--judge", f"open=openai-compatible:{judge.url}#j", "--out", str(run),
        ]  # fmt: skip
        first = CliRunner().invoke(main, command)
        assert len(judge.requests) == len(open_ended), first.output
        records = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
        assert {r["raw"] for r in records} == {"it depends"}
        assert all(r["error"].startswith("invalid_output") for r in records)
        judge.default = "ok:yes - the same object"
        second = CliRunner().invoke(main, command)
    assert len(judge.requests) == 2 * len(open_ended), second.output
    results = json.loads((run / "results.json").read_text())
    assert results["open_ended"]["n"] == len(open_ended) and results["open_ended"]["accuracy"] == 1.0


def test_a_batch_reply_the_check_rejects_is_asked_again_by_the_next_process(tmp_path: Path):
    """The batch journal is a cache too: a stored reply its caller refused answers this process
    only (no sweep loop asks forever), and a new process queues the request again."""
    from vqakit.models import BatchJournal, Completion

    paths = tmp_path / "batches.jsonl", tmp_path / "results.jsonl"
    journal = BatchJournal(*paths)
    journal.add_results(None, {"k1": Completion("perhaps", "m"), "k2": Completion("yes", "m")})
    journal.reject("k1")
    assert journal.answer("k1").text == "perhaps"  # this process keeps it
    reopened = BatchJournal(*paths)
    assert reopened.answer("k1") is None and reopened.answer("k2").text == "yes"
