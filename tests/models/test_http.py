"""The HTTP transport of `openai:` and `openai-compatible:` models against raw loopback servers that
answer byte by byte as scripted: connections kept alive and reused, replies framed every way
HTTP/1.1 allows (Content-Length, chunked, until close), compressed replies, a server that closes
idle connections, and the failures a run classifies (refused, cut, malformed, silent)."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
import threading
from collections.abc import Callable

import pytest

from vqakit.models import Message, Model, RetryPolicy
from vqakit.models._http import HttpClient, HttpFailure

REPLY = json.dumps(
    {"choices": [{"message": {"role": "assistant", "content": "Answer: B"}, "finish_reason": "stop"}]}
).encode()
ONE = RetryPolicy(max_attempts=1)

Answer = Callable[[bytes, int], bytes | None]  # (request head + body, request number) -> raw reply


def framed(body: bytes = REPLY, *headers: str, status: str = "200 OK") -> bytes:
    head = [f"HTTP/1.1 {status}", "Content-Type: application/json", *headers]
    if not any(h.lower().startswith(("content-length", "transfer-encoding")) for h in headers):
        head.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


CHUNKED = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    + b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in (REPLY[:7], REPLY[7:]))
    + b"0\r\n\r\n"
)


class RawServer:
    """A loopback server in a thread; `answer(request, number)` gives the raw bytes of each reply
    (None: close the connection without a word). Counts connections and requests."""

    def __init__(self, answer: Answer, *, close_after: bool = False) -> None:
        self.answer = answer
        self.close_after = close_after  # close each connection after its reply
        self.connections = 0
        self.requests: list[bytes] = []
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                request = head + await reader.readexactly(length)
                self.requests.append(request)
                reply = self.answer(request, len(self.requests))
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if self.close_after:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        writer.close()

    def __enter__(self) -> RawServer:
        self.thread.start()
        future = asyncio.run_coroutine_threadsafe(
            asyncio.start_server(self._handle, "127.0.0.1", 0), self.loop
        )
        self.server = future.result(10)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        async def close() -> None:  # on the server's own loop: asyncio's Server is not thread-safe
            self.server.close()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


def ask(url: str, count: int = 1, **kwargs) -> list:
    """`count` calls of one model in turn, on one event loop (as a run makes them)."""
    model = Model(f"openai-compatible:{url}#m", cache=False, retry=kwargs.pop("retry", ONE), **kwargs)
    try:
        return [model.complete_sync([Message.user(f"question {i}")]) for i in range(count)]
    finally:
        model.close()


def test_one_connection_serves_request_after_request():
    with RawServer(lambda request, n: framed()) as server:
        answers = ask(server.url, 20)
    assert all(a.ok and a.text == "Answer: B" for a in answers)
    assert server.connections == 1 and len(server.requests) == 20


def test_concurrent_requests_open_a_connection_each_and_reuse_them():
    async def many(url: str) -> list:
        model = Model(f"openai-compatible:{url}#m", cache=False, concurrency=8, retry=ONE)
        try:
            return await asyncio.gather(*(model.complete([Message.user(f"q {i}")]) for i in range(64)))
        finally:
            await model.aclose()

    with RawServer(lambda request, n: framed()) as server:
        answers = asyncio.run(many(server.url))
    assert all(a.ok for a in answers)
    assert server.connections <= 8 and len(server.requests) == 64


@pytest.mark.parametrize(
    "reply",
    [
        CHUNKED,
        framed(gzip.compress(REPLY), "Content-Encoding: gzip"),
        b"HTTP/1.1 100 Continue\r\n\r\n" + framed(),
    ],
    ids=["chunked", "gzip", "100-continue"],
)
def test_replies_framed_every_way_are_read(reply: bytes):
    with RawServer(lambda request, n: reply) as server:
        answers = ask(server.url, 3)
    assert [a.text for a in answers] == ["Answer: B"] * 3
    assert server.connections == 1


def test_a_reply_that_closes_its_connection_is_read_and_the_next_request_opens_another():
    """`Connection: close`, and a reply framed by closing the connection (no length)."""
    until_close = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n" + REPLY
    with RawServer(lambda request, n: until_close, close_after=True) as server:
        answers = ask(server.url, 3)
    assert [a.text for a in answers] == ["Answer: B"] * 3
    assert server.connections == 3


def test_a_kept_connection_the_server_closed_is_replaced_without_an_error():
    """The server answers, then closes the idle connection (as uvicorn does after 5 s): the next
    request goes out on a new connection, with no failed attempt."""
    with RawServer(lambda request, n: framed(), close_after=True) as server:
        answers = ask(server.url, 4)
    assert all(a.ok and a.attempts == 1 for a in answers)
    assert server.connections == 4


def test_a_server_that_drops_a_kept_connection_unanswered_gets_the_request_once_more():
    """The second request arrives on the kept connection and the server closes it without a reply
    (the race of a server closing an idle connection): sent again at once on a new connection."""
    with RawServer(lambda request, n: None if n == 2 else framed()) as server:
        answers = ask(server.url, 3)
    assert all(a.ok and a.attempts == 1 for a in answers)
    assert len(server.requests) == 4 and server.connections == 2


@pytest.mark.parametrize(
    ("answer", "kind"),
    [
        (lambda request, n: None, "connection"),  # closed at once, on a new connection
        (lambda request, n: b"SPDY/9 what\r\n\r\n", "connection"),  # not HTTP
        (lambda request, n: framed()[:-5], "connection"),  # cut short, then closed
        (
            lambda request, n: framed(b'{"error": {"message": "no model"}}', status="404 Not Found"),
            "bad_request",
        ),
        (lambda request, n: framed(b"busy", "Retry-After: 0", status="503 Service Unavailable"), "server"),
    ],
    ids=["closed", "not-http", "cut", "404", "503"],
)
def test_failures_keep_their_kind(answer: Answer, kind: str):
    with RawServer(answer, close_after=True) as server:
        (completion,) = ask(server.url)
    assert completion.error is not None and completion.error.type == kind


def test_a_refused_connection_is_a_connection_error():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: connections are refused
        (completion,) = ask(f"http://127.0.0.1:{port}/v1")
    assert completion.error is not None and completion.error.type == "connection"


def test_a_server_that_never_answers_times_out():
    def silent(request: bytes, number: int) -> bytes:
        threading.Event().wait(3)
        return framed()

    with RawServer(silent) as server:
        (completion,) = ask(server.url, request_timeout_s=0.5)
    assert completion.error is not None and completion.error.type == "timeout"


def test_the_request_carries_host_length_and_the_key(monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", "test-key-not-secret")
    with RawServer(lambda request, n: framed()) as server:
        ask(server.url)
    head = server.requests[0].split(b"\r\n\r\n", 1)[0].decode().lower()
    port = server.url.split(":")[2].split("/")[0]
    assert head.startswith("post /v1/chat/completions http/1.1")
    assert f"host: 127.0.0.1:{port}" in head and "authorization: bearer test-key-not-secret" in head
    body = server.requests[0].split(b"\r\n\r\n", 1)[1]
    assert f"content-length: {len(body)}" in head and json.loads(body)["model"] == "m"


def test_not_an_http_url_is_refused():
    async def post() -> None:
        await HttpClient().post("ftp://example.org/x", b"{}", timeout_s=1)

    with pytest.raises(ValueError, match="not an http"):
        asyncio.run(post())
    assert issubclass(HttpFailure, Exception)
