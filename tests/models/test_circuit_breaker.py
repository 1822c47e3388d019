"""Giving up on an endpoint whose requests keep failing the same way (`CircuitBreaker`), and what
an HTTP error record keeps (status, URL, the first line of the body), against loopback servers."""

from __future__ import annotations

import asyncio

import pytest
from bad_servers import NotFoundServer, closed_port
from fake_server import FakeServer

from vqakit.models import BackendError, Message, Model, RetryPolicy, stopping_failing_endpoints
from vqakit.models._retry import CircuitBreaker, classify_status

FAST = RetryPolicy(max_attempts=6, base_s=0.01, max_wait_s=0.02)


def _error(kind: str = "connection", status: int | None = None) -> BackendError:
    return BackendError(kind, f"{kind} failed", retryable=True, status=status)


def test_the_same_transport_failure_in_a_row_trips_once():
    tripped = []
    breaker = CircuitBreaker(tripped.append, threshold=3)
    for _ in range(5):
        breaker.record("http://h/v1/chat/completions", _error())
    assert len(tripped) == 1 and tripped[0].requests == 3 and tripped[0].kind == "connection"
    assert breaker.down("http://h/v1/chat/completions") is tripped[0]
    assert breaker.down("http://other/v1/chat/completions") is None  # per endpoint
    assert "the last 3 requests to http://h/v1/chat/completions all failed the same way" in str(tripped[0])


@pytest.mark.parametrize(
    "between",
    [None, _error("timeout"), classify_status(400, "one long video"), classify_status(429, "slow down")],
    ids=["a reply", "another kind", "a request's own 400", "a rate limit"],
)
def test_anything_else_starts_the_count_again(between):
    tripped = []
    breaker = CircuitBreaker(tripped.append, threshold=3)
    for _ in range(2):
        breaker.record("e", _error())
    breaker.record("e", between)
    for _ in range(2):
        breaker.record("e", _error())
    assert tripped == []


@pytest.mark.parametrize(
    ("status", "counted"), [(401, True), (403, True), (404, True), (502, True), (400, False)]
)
def test_which_http_statuses_count(status, counted):
    tripped = []
    breaker = CircuitBreaker(tripped.append, threshold=2)
    for _ in range(2):
        breaker.record("e", classify_status(status, "body"))
    assert bool(tripped) is counted


def test_an_http_error_record_keeps_status_url_and_first_line():
    with NotFoundServer() as server:
        model = Model(f"openai-compatible:{server.url}#m", cache=False, retry=FAST)
        completion = model.complete_sync([Message.user("hi")])
    assert completion.error.type == "bad_request"
    assert completion.error.message == f"HTTP 404 from {server.url}/chat/completions: 404 page not found"


def test_an_empty_error_body_says_so():
    assert classify_status(404, "", url="http://h/v1/x").message == "HTTP 404 from http://h/v1/x (empty body)"


def test_calls_inside_the_block_stop_asking_a_dead_endpoint():
    """A closed port: after `threshold` refused requests the breaker trips, and the calls still
    going get an error at once without another request."""
    port = closed_port()
    tripped = []

    async def run() -> list:
        model = Model(
            f"openai-compatible:http://127.0.0.1:{port}/v1#m", cache=False, retry=FAST, concurrency=4
        )
        try:
            with stopping_failing_endpoints(tripped.append, threshold=5):
                return await asyncio.gather(*(model.complete([Message.user(f"q{i}")]) for i in range(4)))
        finally:
            await model.aclose()

    completions = asyncio.run(run())
    assert len(tripped) == 1 and tripped[0].endpoint == f"http://127.0.0.1:{port}/v1/chat/completions"
    assert all(c.error.type == "connection" for c in completions)
    assert sum(c.error.message.startswith("not sent: the last 5 requests") for c in completions) >= 2
    assert sum(c.attempts for c in completions) < 4 * FAST.max_attempts


def test_outside_any_block_nothing_is_given_up():
    with FakeServer(default="500") as server:
        model = Model(f"openai-compatible:{server.url}#m", cache=False, retry=FAST)
        for _ in range(5):
            assert model.complete_sync([Message.user("hi")]).error.type == "server"
    assert len(server.requests) == 5 * FAST.max_attempts
