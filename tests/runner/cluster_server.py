"""A loopback-style OpenAI-compatible server for the Ray cluster test, run as its own process in
a network namespace: `python cluster_server.py HOST`. It prints its port, answers every chat
request at once with a letter that depends only on the question (so any run of the same
questions gets the same replies), and counts chat requests per client address (`GET /stats`),
which shows which hosts did the work; `GET /v1/models` lists its one model, as a server does for
the check a run makes before it starts. A test double at the HTTP boundary; no model."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from collections import Counter

clients: Counter[str] = Counter()


def reply(body: bytes) -> bytes:
    request = json.loads(body)
    content = request["messages"][-1]["content"]
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
    letter = "ABCD"[hashlib.sha256(text.encode()).digest()[0] % 4]
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": f"Answer: {letter}"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3},
        }
    ).encode()


async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    peer = writer.get_extra_info("peername")[0]
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            sizes = [
                int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")
            ]
            length = sizes[0] if sizes else 0
            body = await reader.readexactly(length)
            if lines[0].startswith("GET") and lines[0].split()[1].endswith("/models"):
                data = json.dumps({"object": "list", "data": [{"id": "m", "object": "model"}]}).encode()
            elif lines[0].startswith("GET"):
                data = json.dumps(dict(clients)).encode()
            else:
                clients[peer] += 1
                data = reply(body)
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(
                data
            )
            writer.write(head + data)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()


async def main(host: str) -> None:
    server = await asyncio.start_server(handle, host, 0, backlog=1024)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
