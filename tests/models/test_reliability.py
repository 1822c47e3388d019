"""Retries, time limits, Retry-After and refusal fallback against a loopback server."""

from __future__ import annotations

import asyncio
import time

import numpy as np
import pytest
from fake_server import FakeServer

from vqakit.models import Frames, Image, Message, Model, RetryPolicy

FAST = RetryPolicy(max_attempts=4, base_s=0.01, max_wait_s=0.05)


def model(server: FakeServer, **kwargs) -> Model:
    kwargs.setdefault("retry", FAST)
    kwargs.setdefault("cache", False)
    return Model(f"openai-compatible:{server.url}#fake", **kwargs)


def ask(m: Model, text: str = "hello", **params):
    return m.complete_sync([Message.user(text)], **params)


def test_single_request_ok():
    with FakeServer() as server:
        completion = ask(model(server))
    assert completion.ok and completion.text == "reply 1"
    assert completion.usage.input_tokens == 11 and completion.attempts == 1
    body = server.requests[0]["body"]
    assert body["temperature"] == 0.0 and "max_tokens" not in body  # no cap unless one is set


@pytest.mark.parametrize(
    "failures", [["429"], ["500"], ["503", "500"], ["drop"], ["malformed"], ["slow:1.0"]]
)
def test_transient_failures_are_retried(failures):
    with FakeServer() as server:
        server.script.extend(failures)
        completion = ask(model(server, request_timeout_s=0.5))
    assert completion.ok, completion.error
    assert completion.attempts == len(failures) + 1


def test_retry_after_is_honoured():
    with FakeServer() as server:
        server.script.extend(["429:0.6"])
        start = time.monotonic()
        completion = ask(model(server))
    assert completion.ok and time.monotonic() - start >= 0.6


def test_gives_up_with_an_error_value():
    with FakeServer(default="500") as server:
        completion = ask(model(server))
    assert not completion.ok and completion.text is None
    assert completion.error.type == "server" and "after 4 attempt(s)" in completion.error.message
    assert len(server.requests) == 4


def test_client_errors_are_not_retried():
    with FakeServer(default="400") as server:
        completion = ask(model(server))
    assert completion.error.type == "bad_request" and len(server.requests) == 1


def test_total_time_limit_stops_retries():
    with FakeServer(default="429:5") as server:
        start = time.monotonic()
        completion = ask(model(server, total_timeout_s=1.0))
    assert completion.error.type == "rate_limit" and time.monotonic() - start < 1.0


def test_an_empty_reply_is_asked_again_with_backoff():
    with FakeServer() as server:
        server.script.extend(["empty", "empty", "ok:B"])
        completion = ask(model(server))
    assert completion.ok and completion.text == "B" and completion.attempts == 3


def test_empty_replies_spend_the_attempt_budget_then_fail_as_empty():
    with FakeServer(default="empty") as server:
        completion = ask(model(server))
    assert completion.error.type == "empty" and "after 4 attempt(s)" in completion.error.message
    assert len(server.requests) == 4 and completion.attempts == 4


def test_a_refusal_is_not_asked_again():
    with FakeServer(default="refuse") as server:
        completion = ask(model(server))
    assert completion.error.type == "refused" and len(server.requests) == 1


def test_refusal_and_empty_go_to_fallback():
    with FakeServer(default="refuse") as primary, FakeServer(default="ok:from fallback") as backup:
        completion = ask(model(primary, fallback=model(backup)))
        assert completion.ok and completion.text == "from fallback"
        primary.default = "empty"
        assert ask(model(primary, fallback=model(backup))).text == "from fallback"
        empty = ask(model(primary))
    assert empty.error.type == "empty" and empty.attempts == FAST.max_attempts


def test_images_and_frames_become_data_urls_with_time_labels():
    frames = Frames(tuple(np.full((64, 96, 3), i * 40, np.uint8) for i in range(3)), (0.0, 65.0, 3725.0))
    picture = Image(np.zeros((2000, 1000, 3), np.uint8))
    with FakeServer() as server:
        ask_model = model(server, image_max_side=256)
        completion = ask_model.complete_sync(
            [Message.system("be brief"), Message.user(frames, picture, "what?")]
        )
    assert completion.ok
    content = server.requests[0]["body"]["messages"][1]["content"]
    kinds = [part["type"] for part in content]
    assert kinds == ["text", "image_url", "text", "image_url", "text", "image_url", "image_url", "text"]
    assert [content[i]["text"] for i in (0, 2, 4)] == ["[00:00]", "[01:05]", "[01:02:05]"]
    assert all(
        p["image_url"]["url"].startswith("data:image/jpeg;base64,")
        for p in content
        if p["type"] == "image_url"
    )


def test_image_limit_is_checked_before_sending():
    with FakeServer() as server:
        m = model(server, max_images=2)
        completion = m.complete_sync(
            [Message.user(Image(np.zeros((8, 8, 3), np.uint8)), *[Image(np.ones((8, 8, 3), np.uint8))] * 2)]
        )
    assert completion.error.type == "too_many_images" and server.requests == []


def test_sixteen_concurrent_requests_respect_the_bound():
    with FakeServer(delay_s=0.2) as server:
        m = model(server, concurrency=4)

        async def run():
            return await asyncio.gather(*(m.complete([Message.user(f"q{i}")]) for i in range(16)))

        start = time.monotonic()
        completions = asyncio.run(run())
        elapsed = time.monotonic() - start
    assert all(c.ok for c in completions)
    assert 0.75 <= elapsed < 2.5  # 16 requests / 4 at a time x 0.2 s = 0.8 s at best
