"""Calls answered through providers' batch APIs (OpenAI Batch, Anthropic Message Batches), against
the loopback fake of those endpoints: queue, submit, poll, collect; per-request failures; resume
from the journal without a second submission or download; fallback where there is no batch API."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from fake_batch_server import FakeBatchServer

from vqakit.models import BATCH_PENDING, Batcher, BatchJournal, Message, Model, RetryPolicy, deferred_calls
from vqakit.models._batch import _chunks

SECRET = "sk-test-0123456789abcdefSECRET"
PROVIDERS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request, monkeypatch) -> str:
    if request.param == "anthropic":
        pytest.importorskip("anthropic")
    monkeypatch.setenv(PROVIDERS[request.param], SECRET)
    return request.param


def make(provider: str, server: FakeBatchServer, monkeypatch, **kwargs) -> Model:
    """A model of the provider whose API is the fake (the spec names no URL, so a restarted
    fake on another port is the same provider)."""
    monkeypatch.setenv(PROVIDERS[provider], SECRET)
    if provider == "openai":
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        return Model("openai:judge-test", **kwargs)
    return Model("anthropic:claude-test", backend_options={"base_url": server.root}, **kwargs)


def journal(folder: Path) -> BatchJournal:
    return BatchJournal(folder / "judge_batches.jsonl", folder / "judge_batch_results.jsonl")


async def ask(model, prompts: list[str]) -> tuple[list, list[str]]:
    """The completions of one sweep of calls, and the keys it deferred."""
    with deferred_calls() as deferred:
        done = await asyncio.gather(*(model.complete([Message.user(p)]) for p in prompts))
    return done, list(deferred)


def run(coroutine):
    return asyncio.run(coroutine)


def test_calls_wait_for_one_batch_then_answer(provider, tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    notes: list[str] = []
    with FakeBatchServer(polls_to_end=2, reply=lambda prompt: f"answer to {prompt}") as server:

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01, on_note=notes.append)
            model = batcher.wrap(make(provider, server, monkeypatch, cache=False))
            first, deferred = await ask(model, ["q1", "q2", "q1"])
            assert [c.error.type for c in first] == [BATCH_PENDING] * 3 and len(deferred) == 3
            assert await batcher.submit() == 1
            assert await batcher.collect(wait=True) == 1
            second, deferred = await ask(model, ["q1", "q2"])
            await batcher.aclose()
            return second, deferred

        second, deferred = run(main())
    assert [c.text for c in second] == ["answer to q1", "answer to q2"] and deferred == []
    assert server.creates == 1 and server.batches()[0]["_polls"] >= 2  # the SDK reads it again for results
    requests = server.batches()[0]["_requests"]
    assert len(requests) == 2  # the same request twice is asked once
    assert all(len(custom_id) <= 64 for custom_id, _ in requests)
    assert any("submitted batch" in note for note in notes) and any("2 replies" in note for note in notes)
    # the key travels in headers only: never in what was uploaded, nor in the run's files
    assert all(SECRET not in json.dumps(body) for _, body in requests)
    assert any(SECRET in json.dumps(seen["headers"]) for seen in server.seen)
    for path in tmp_path.iterdir():
        assert SECRET not in path.read_text()


def test_openai_batch_wire_shape(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeBatchServer(polls_to_end=1) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01)
            model = batcher.wrap(Model("openai:gpt-test?max_tokens=5", cache=False))
            await ask(model, ["hello"])
            await batcher.submit()
            await batcher.collect(wait=True)
            await batcher.aclose()

        run(main())
        content = server.state["files"][server.batches()[0]["input_file_id"]]
    line = json.loads(content)
    assert line["method"] == "POST" and line["url"] == "/v1/chat/completions"
    assert line["body"]["model"] == "gpt-test" and line["body"]["max_completion_tokens"] == 5
    assert line["body"]["messages"] == [{"role": "user", "content": "hello"}]
    # tagged with the intent journaled before the upload: its id and the digest of the requests
    intent, submitted = [json.loads(line) for line in (tmp_path / "judge_batches.jsonl").open()][:2]
    assert intent["event"] == "intent" and submitted["event"] == "submitted"
    assert submitted["intent"] == intent["intent"] and len(intent["digest"]) == 64
    assert server.batches()[0]["metadata"] == {
        "source": "vqakit",
        "vqakit_intent": intent["intent"],
        "vqakit_digest": intent["digest"],
    }
    posts = [seen for seen in server.seen if seen["path"] == "/v1/files"]
    assert posts[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert posts[0]["headers"]["Content-Type"].startswith("multipart/form-data")


@pytest.mark.parametrize("end_as", ["completed", "expired"])
def test_failed_requests_are_errors_of_their_kind(provider, tmp_path, monkeypatch, end_as):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    with FakeBatchServer(polls_to_end=1, fail=("bad question",), end_as=end_as) as server:

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01)
            model = batcher.wrap(make(provider, server, monkeypatch, cache=False))
            await ask(model, ["good question", "bad question"])
            await batcher.submit()
            await batcher.collect(wait=True)
            answers, _ = await ask(model, ["good question", "bad question"])
            await batcher.aclose()
            return answers

        good, bad = run(main())
    if end_as == "expired":
        assert good.error.type == bad.error.type == "expired" and good.text is None
    else:
        assert good.ok and good.text == "yes"
        assert (
            bad.error.type == "bad_request" and "scripted failure" in bad.error.message and bad.text is None
        )


def test_a_batch_that_failed_validation(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    with FakeBatchServer(polls_to_end=1, end_as="failed") as server:

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01)
            model = batcher.wrap(make("openai", server, monkeypatch, cache=False))
            await ask(model, ["q"])
            await batcher.submit()
            await batcher.collect(wait=True)
            answers, _ = await ask(model, ["q"])
            await batcher.aclose()
            return answers[0]

        answer = run(main())
    assert answer.error.type == "batch_failed" and "scripted validation failure" in answer.error.message


def test_a_new_process_polls_the_same_batch_and_never_fetches_twice(provider, tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    state = tmp_path / "server.json"
    run_folder = tmp_path / "run"

    async def sweep(server, *, submit: bool, wait: bool | None):
        batcher = Batcher(journal(run_folder), poll_s=0.01)
        model = batcher.wrap(make(provider, server, monkeypatch, cache=False))
        answers, deferred = await ask(model, ["q1", "q2"])
        submitted = await batcher.submit() if submit else 0
        ended = await batcher.collect(wait=wait) if wait is not None else 0
        await batcher.aclose()
        return answers, deferred, submitted, ended

    with FakeBatchServer(state, polls_to_end=3) as server:  # the first process submits and stops
        _, deferred, submitted, ended = run(sweep(server, submit=True, wait=False))
    assert (len(deferred), submitted, ended) == (2, 1, 0)
    with FakeBatchServer(state, polls_to_end=3) as server:  # a restarted provider, a new process
        _, deferred, submitted, ended = run(sweep(server, submit=True, wait=True))
        assert (len(deferred), submitted, ended) == (2, 0, 1)  # waited on the batch it had
        assert server.creates == 1 and server.uploads == (1 if provider == "openai" else 0)
        downloads = sum(batch["_downloads"] for batch in server.batches())
        seen = len(server.seen)
        answers, deferred, submitted, _ = run(sweep(server, submit=True, wait=True))  # a third one
        assert [a.text for a in answers] == ["yes", "yes"] and deferred == [] and submitted == 0
        assert len(server.seen) == seen  # answered from the run folder: not one request
        assert sum(batch["_downloads"] for batch in server.batches()) == downloads
    events = [json.loads(line)["event"] for line in (run_folder / "judge_batches.jsonl").open()]
    assert events == ["intent", "submitted", "ended"]


def test_failures_are_asked_again_by_a_new_process(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    with FakeBatchServer(polls_to_end=1, fail=("q",)) as server:

        async def once():
            batcher = Batcher(journal(tmp_path), poll_s=0.01)
            model = batcher.wrap(make("openai", server, monkeypatch, cache=False))
            await ask(model, ["q"])
            await batcher.submit()
            await batcher.collect(wait=True)
            answers, _ = await ask(model, ["q"])
            await batcher.aclose()
            return answers[0]

        assert run(once()).error.type == "bad_request"
        server.fail = ()
        assert run(once()).text == "yes"
        assert server.creates == 2


def test_replies_also_fill_the_response_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    with FakeBatchServer(polls_to_end=1) as server:

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01)
            model = batcher.wrap(make("openai", server, monkeypatch))
            await ask(model, ["q"])
            await batcher.submit()
            await batcher.collect(wait=True)
            await ask(model, ["q"])
            await batcher.aclose()

        run(main())
        seen = len(server.seen)
        again = make("openai", server, monkeypatch).complete_sync(
            [Message.user("q")]
        )  # no batch, same request
    assert again.text == "yes" and again.cached and len(server.seen) == seen


def test_without_a_batch_api_calls_go_one_by_one(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    notes: list[str] = []
    with FakeBatchServer(batch_api=False, reply=lambda prompt: "direct") as server:

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01, on_note=notes.append)
            model = batcher.wrap(Model(f"openai-compatible:{server.url}#local", cache=False))
            _, deferred = await ask(model, ["q"])
            assert await batcher.submit() == 0 and batcher.outstanding() == []
            answers, again = await ask(model, ["q"])
            replies = tmp_path / "replies.jsonl"
            replies.write_text('{"sample_id": "s1", "reply": "B"}\n')
            replayed = batcher.wrap(Model(f"replay:{replies}"))
            await batcher.aclose()
            await model.aclose()
            return deferred, answers, again, replayed.api

        deferred, answers, again, replay_api = run(main())
    assert len(deferred) == 1 and again == [] and answers[0].text == "direct"
    assert replay_api is None
    assert any("no batch API" in note and "one by one" in note for note in notes)
    assert any("replay:" in note and "one by one" in note for note in notes)


def test_a_refused_submission_is_every_calls_error(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    with FakeBatchServer() as server:
        server.post = lambda path, raw, headers: (401, {"error": {"message": f"bad key {SECRET}"}})

        async def main():
            batcher = Batcher(journal(tmp_path), poll_s=0.01, retry=RetryPolicy(max_attempts=1))
            model = batcher.wrap(make("openai", server, monkeypatch, cache=False))
            await ask(model, ["q1", "q2"])
            assert await batcher.submit() == 0
            answers, deferred = await ask(model, ["q1", "q2"])
            await batcher.aclose()
            return answers, deferred

        answers, deferred = run(main())
    assert deferred == [] and [a.error.type for a in answers] == ["auth", "auth"]
    assert all(SECRET not in a.error.message for a in answers)
    lines = [json.loads(line) for line in (tmp_path / "judge_batches.jsonl").open()]
    assert [line["event"] for line in lines] == ["intent", "unsent"]  # no batch was made
    assert "auth" in lines[1]["why"]
    assert SECRET not in (tmp_path / "judge_batch_results.jsonl").read_text()
    assert SECRET not in (tmp_path / "judge_batches.jsonl").read_text()


def test_batches_are_split_at_the_providers_limits():
    requests = {f"k{i}": b"x" * 10 for i in range(7)}
    assert [len(chunk) for chunk in _chunks(requests, 3, 10**6)] == [3, 3, 1]
    assert [len(chunk) for chunk in _chunks(requests, 100, 25)] == [2, 2, 2, 1]
