"""Batches are submitted once: the intent is journaled before the upload and the batch tagged with
it, so a process killed after the provider accepted a batch but before its id reached the journal
finds that batch when it starts again instead of submitting it a second time (against the
loopback fake of the OpenAI and Anthropic batch APIs; the kill is a real SIGKILL of a process
that waits on the provider's reply to its batch creation)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fake_batch_server import FakeBatchServer

from vqakit.models import Batcher, BatchJournal, Message, Model, RetryPolicy, deferred_calls

SECRET = "sk-test-0123456789abcdefSECRET"
KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
SPECS = {"openai": "openai:judge-test", "anthropic": "anthropic:claude-test"}
KILLS = 3  # kills in the submission window per provider (each a fresh run folder)


@pytest.fixture(params=sorted(KEYS))
def provider(request, monkeypatch) -> str:
    if request.param == "anthropic":
        pytest.importorskip("anthropic")
    monkeypatch.setenv(KEYS[request.param], SECRET)
    return request.param


def journal_text(folder: Path) -> str:
    path = folder / "judge_batches.jsonl"
    return path.read_text() if path.exists() else ""


def point_at(server: FakeBatchServer, monkeypatch) -> None:
    """Both SDKs' base URLs at the fake (inherited by child processes)."""
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)


def journal(folder: Path) -> BatchJournal:
    return BatchJournal(folder / "judge_batches.jsonl", folder / "judge_batch_results.jsonl")


def events(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "judge_batches.jsonl").open()]


async def ask(model, prompts: list[str]) -> tuple[list, list[str]]:
    with deferred_calls() as deferred:
        done = await asyncio.gather(*(model.complete([Message.user(p)]) for p in prompts))
    return done, list(deferred)


async def sweep(spec: str, folder: Path, prompts: list[str], notes: list[str] | None = None):
    """What a judge's pass does: ask, submit what is queued, wait for it, ask again."""
    batcher = Batcher(journal(folder), poll_s=0.01, on_note=None if notes is None else notes.append)
    model = batcher.wrap(Model(spec, cache=False))
    _, deferred = await ask(model, prompts)
    submitted = await batcher.submit()
    ended = await batcher.collect(wait=True)
    answers, _ = await ask(model, prompts)
    await batcher.aclose()
    return deferred, submitted, ended, answers


SUBMITTER = """
import asyncio, sys
from pathlib import Path
from vqakit.models import Batcher, BatchJournal, Message, Model, deferred_calls

async def main(spec, folder, prompts):
    batcher = Batcher(BatchJournal(folder / "judge_batches.jsonl", folder / "judge_batch_results.jsonl"))
    model = batcher.wrap(Model(spec, cache=False))
    with deferred_calls():
        await asyncio.gather(*(model.complete([Message.user(p)]) for p in prompts))
    await batcher.submit()  # the provider holds its reply: the process is killed while it waits

asyncio.run(main(sys.argv[1], Path(sys.argv[2]), sys.argv[3:]))
"""


def kill_in_submission_window(server: FakeBatchServer, spec: str, folder: Path, prompts: list[str]) -> None:
    """Start a process that submits a batch; SIGKILL it once the provider has made the batch and
    before the reply (with the batch's id) reaches it."""
    creates = server.creates
    server.hold_creates = True
    server.released.clear()
    child = subprocess.Popen([sys.executable, "-c", SUBMITTER, spec, str(folder), *prompts])
    try:
        deadline = time.monotonic() + 120
        while server.creates == creates and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.creates == creates + 1, f"the batch was not created (exit {child.poll()})"
        assert child.poll() is None, "the submitting process ended before it was killed"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        server.hold_creates = False
        server.released.set()


def test_a_kill_between_acceptance_and_journal_does_not_submit_again(provider, tmp_path, monkeypatch):
    with FakeBatchServer(polls_to_end=2, reply=lambda prompt: f"answer to {prompt}") as server:
        point_at(server, monkeypatch)
        for kill in range(KILLS):
            folder = tmp_path / f"run-{kill}"
            prompts = [f"question {kill}-a", f"question {kill}-b"]
            kill_in_submission_window(server, SPECS[provider], folder, prompts)
            assert '"submitted"' not in journal_text(folder)  # killed before it
            lines = events(folder)
            notes: list[str] = []
            deferred, submitted, ended, answers = asyncio.run(sweep(SPECS[provider], folder, prompts, notes))
            assert server.creates == kill + 1  # exactly one batch per run, the killed one's
            assert [line["event"] for line in lines] == ["intent"]
            assert (len(deferred), submitted, ended) == (2, 0, 1)
            assert [answer.text for answer in answers] == [f"answer to {p}" for p in prompts]
            after = events(folder)
            assert [line["event"] for line in after] == ["intent", "submitted", "ended"]
            assert after[1]["found"] is True and after[1]["intent"] == lines[0]["intent"]
            assert after[1]["batch"] == server.batches()[-1]["id"]
            assert any("instead of submitting" in note for note in notes)
        if provider == "openai":
            assert server.uploads == KILLS


class Stopped(Exception):
    """The process stops (as if killed) at this point."""


def test_an_intent_the_provider_never_got_is_submitted_once(provider, tmp_path, monkeypatch):
    """Killed after the intent line, before the upload: nothing at the provider is tagged with
    it, so it is marked unsent and its requests go out in one new batch."""
    with FakeBatchServer(polls_to_end=1) as server:
        point_at(server, monkeypatch)

        async def killed_before_upload() -> None:
            batcher = Batcher(journal(tmp_path), poll_s=0.01)
            model = batcher.wrap(Model(SPECS[provider], cache=False))
            await ask(model, ["q1", "q2"])
            real_submit = batcher.submit

            async def upload_never_made(requests, intent):
                raise Stopped  # the process stops here, after the intent line

            model.api.submit = upload_never_made
            with pytest.raises(Stopped):
                await real_submit()

        asyncio.run(killed_before_upload())
        assert server.creates == 0 and [line["event"] for line in events(tmp_path)] == ["intent"]
        _, submitted, ended, answers = asyncio.run(sweep(SPECS[provider], tmp_path, ["q1", "q2"]))
    assert server.creates == 1 and (submitted, ended) == (1, 1)
    assert [answer.text for answer in answers] == ["yes", "yes"]
    lines = events(tmp_path)
    assert [line["event"] for line in lines] == ["intent", "unsent", "intent", "submitted", "ended"]
    assert lines[1]["intent"] == lines[0]["intent"] and lines[3]["intent"] == lines[2]["intent"]
    assert lines[0]["intent"] != lines[2]["intent"] and lines[0]["digest"] == lines[2]["digest"]


def test_a_lost_reply_to_the_creation_is_not_retried_as_a_second_batch(tmp_path, monkeypatch):
    """The provider made the batch but its reply never arrived (a 503 here): before trying again
    the batcher asks for the intent's batch, finds it, and creates no second one."""
    with FakeBatchServer(polls_to_end=1) as server:
        point_at(server, monkeypatch)
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        original = server.post

        def lose_first_reply(path, raw, headers):
            status, payload = original(path, raw, headers)
            if path == "/v1/batches" and server.creates == 1:
                return 503, {"error": {"message": "upstream timed out"}}
            return status, payload

        server.post = lose_first_reply

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01, retry=RetryPolicy(max_attempts=3, base_s=0.01))
            model = batcher.wrap(Model(SPECS["openai"], cache=False))
            await ask(model, ["q"])
            submitted = await batcher.submit()
            await batcher.collect(wait=True)
            answers, _ = await ask(model, ["q"])
            await batcher.aclose()
            return submitted, answers

        submitted, answers = asyncio.run(main())
    assert server.creates == 1 and submitted == 1 and answers[0].text == "yes"
    assert [line["event"] for line in events(tmp_path)] == ["intent", "submitted", "ended"]


def test_anthropic_takes_an_ended_batch_only_with_the_intents_custom_ids(tmp_path, monkeypatch):
    """Message batches carry no tag: an ended candidate of the same size and time is taken only
    when its results hold exactly the intent's custom ids (here, another run's batch of two other
    questions is passed over, and the killed run's own batch, ended meanwhile, is taken)."""
    pytest.importorskip("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeBatchServer(polls_to_end=1) as server:
        point_at(server, monkeypatch)
        prompts = ["ours a", "ours b"]
        kill_in_submission_window(server, SPECS["anthropic"], tmp_path / "run", prompts)
        asyncio.run(sweep(SPECS["anthropic"], tmp_path / "other", ["theirs a", "theirs b"]))
        assert server.creates == 2
        ours, theirs = server.batches()
        with server.lock:
            server._end(ours)  # the killed run's batch ended while it was down
            # the other run's batch is the one created closest to the intent: looked at first
            at = datetime.fromtimestamp(events(tmp_path / "run")[0]["at"], UTC)
            theirs["created_at"] = at.isoformat()
            ours["created_at"] = (at + timedelta(seconds=30)).isoformat()
        assert theirs["_ended"] and theirs["request_counts"]["succeeded"] == 2
        _, submitted, _, answers = asyncio.run(sweep(SPECS["anthropic"], tmp_path / "run", prompts))
    assert server.creates == 2 and submitted == 0 and [a.text for a in answers] == ["yes", "yes"]
    assert events(tmp_path / "run")[1]["batch"] == ours["id"]
