"""A loopback OpenAI-compatible chat server for the benchmark scripts, with counters.

It answers every `POST .../chat/completions` after a fixed delay with a short MCQ reply (or,
given `replies`, the text scripted for the first marker the request's text holds: a reply per
question, whatever order they come in), and counts what it saw: requests, the most requests in
flight at once, images per request, the size of the first image of each request and the bytes
received. `GET /stats` returns the counters as JSON, `POST /reset` zeroes them. It runs in its
own process (`start_server`), so its CPU time is not the client's. No model is involved: it is a
stand-in for a server whose every reply takes `delay_s`.
"""

from __future__ import annotations

import asyncio
import base64
import io
import json
import multiprocessing
import re
import time
from collections import Counter
from typing import Any


def _reply(text: str) -> bytes:
    return json.dumps(
        {
            "id": "bench",
            "object": "chat.completion",
            "created": 0,
            "model": "bench",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
        }
    ).encode()


REPLY = _reply("Answer: B")


def _scripted(body: bytes, replies: dict[str, str]) -> bytes:
    """The reply scripted for the first marker found in the request's text, else REPLY."""
    try:
        messages = json.loads(body).get("messages") or []
    except ValueError:
        return REPLY
    texts = []
    for message in messages:
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"text": content}]
        texts += [str(part.get("text") or "") for part in parts if isinstance(part, dict)]
    said = "\n".join(texts)
    return next((_reply(text) for marker, text in replies.items() if marker in said), REPLY)


_DATA_URL = re.compile(rb"data:image/(?:jpeg|png|webp);base64,([A-Za-z0-9+/=]{16,4096})")


class Counters:
    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.bytes = 0
        self.first: float | None = None  # when the first request arrived
        self.last: float | None = None  # when the last reply went out
        self.area = 0.0  # integral of requests in flight over time
        self.changed = 0.0
        self.clients: Counter[str] = Counter()  # requests per client address
        self.images: Counter[int] = Counter()  # images per request -> requests
        self.sizes: Counter[str] = Counter()  # "WxH" of each request's first image -> requests

    def change(self, by: int) -> None:
        """Requests in flight go up or down by one; the time-weighted mean is kept."""
        now = time.monotonic()
        if self.first is None:
            self.first = self.changed = now
        self.area += self.in_flight * (now - self.changed)
        self.changed = now
        self.in_flight += by
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        if by < 0:
            self.last = now

    def as_dict(self) -> dict[str, Any]:
        busy = (self.last - self.first) if self.first is not None and self.last is not None else 0.0
        return {
            "requests": self.requests,
            "max_in_flight": self.max_in_flight,
            "mean_in_flight": round(self.area / busy, 2) if busy else 0.0,
            "busy_s": round(busy, 3),
            "clients": dict(self.clients),
            "bytes": self.bytes,
            "images_per_request": {str(k): v for k, v in sorted(self.images.items())},
            "first_image_size": dict(self.sizes),
        }


def _image_size(body: bytes) -> str | None:
    """Width x height of the first JPEG/PNG in the body, read from its header only."""
    found = _DATA_URL.search(body)
    if found is None:
        return None
    from PIL import Image

    head = base64.b64decode(found.group(1)[: len(found.group(1)) // 4 * 4])
    try:
        with Image.open(io.BytesIO(head)) as picture:
            return f"{picture.width}x{picture.height}"
    except Exception:  # a header cut inside a marker: size unknown
        return None


async def serve(
    delay_s: float, replies: dict[str, str] | None = None
) -> tuple[asyncio.base_events.Server, int]:
    counters = Counters()

    def respond(writer: asyncio.StreamWriter, status: str, data: bytes) -> None:
        head = f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        writer.write(head.encode() + data)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *lines = head.decode("latin-1").split("\r\n")
                method, path = request_line.split(" ")[:2]
                length = 0
                for line in lines:
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                body = await reader.readexactly(length)
                if method == "GET" and path.endswith("/stats"):
                    respond(writer, "200 OK", json.dumps(counters.as_dict()).encode())
                elif method == "POST" and path.endswith("/reset"):
                    counters.reset()
                    respond(writer, "200 OK", b"{}")
                elif method == "GET":  # model listings some clients ask for first
                    respond(
                        writer, "200 OK", b'{"object": "list", "data": [{"id": "bench", "object": "model"}]}'
                    )
                else:
                    counters.requests += 1
                    counters.bytes += length
                    counters.clients[writer.get_extra_info("peername")[0]] += 1
                    counters.change(+1)
                    counters.images[body.count(b"data:image/")] += 1
                    size = _image_size(body)
                    if size:
                        counters.sizes[size] += 1
                    try:
                        await asyncio.sleep(delay_s)
                    finally:
                        counters.change(-1)
                    respond(writer, "200 OK", _scripted(body, replies) if replies else REPLY)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError, ValueError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=4096, limit=2**26)
    return server, server.sockets[0].getsockname()[1]


def _run(delay_s: float, ports: multiprocessing.Queue, replies: dict[str, str] | None = None) -> None:
    async def forever() -> None:
        server, port = await serve(delay_s, replies)
        ports.put(port)
        async with server:
            await server.serve_forever()

    asyncio.run(forever())


class ChatServer:
    """The server in a child process: `with ChatServer(0.3) as server: server.url ...`;
    `replies` maps a marker in a request's text to the reply text it gets."""

    def __init__(self, delay_s: float, replies: dict[str, str] | None = None) -> None:
        self.delay_s = delay_s
        context = multiprocessing.get_context("spawn")
        self._ports = context.Queue()
        self._process = context.Process(target=_run, args=(delay_s, self._ports, replies), daemon=True)

    def __enter__(self) -> ChatServer:
        self._process.start()
        self.port = self._ports.get(timeout=30)
        return self

    def __exit__(self, *exc: object) -> None:
        self._process.terminate()
        self._process.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _call(self, method: str, path: str) -> dict[str, Any]:
        import urllib.request

        request = urllib.request.Request(
            f"{self.url}/{path}", method=method, data=b"" if method == "POST" else None
        )
        with urllib.request.urlopen(request, timeout=30) as reply:
            return json.loads(reply.read())

    def stats(self) -> dict[str, Any]:
        return self._call("GET", "stats")

    def reset(self) -> None:
        self._call("POST", "reset")
