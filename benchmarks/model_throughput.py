"""How close vqakit's model client gets to the ideal request rate of a slow server.

    python benchmarks/model_throughput.py [--requests 500] [--delay 0.2] [--concurrency 1,8,64]

Starts its own loopback OpenAI-compatible server (asyncio, no model) that answers every chat
request after a fixed delay, then sends N requests with 4 small images each through
`vqakit.models.Model` at each concurrency. Ideal throughput is concurrency / delay requests per
second; the table prints achieved / ideal (1.0 is perfect). At concurrency 1 only a tenth of
the requests are sent, to keep the run short.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time

import numpy as np

from vqakit.models import Image, Message, Model, RetryPolicy

REPLY = json.dumps(
    {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "bench",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "B"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()


async def serve(delay_s: float) -> tuple[asyncio.base_events.Server, int]:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                await reader.readexactly(length)
                await asyncio.sleep(delay_s)
                writer.write(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    + f"Content-Length: {len(REPLY)}\r\n\r\n".encode()
                    + REPLY
                )
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0, backlog=1024)
    return server, server.sockets[0].getsockname()[1]


async def measure(port: int, requests: int, concurrency: int) -> float:
    model = Model(
        f"openai-compatible:http://127.0.0.1:{port}/v1#bench",
        concurrency=concurrency,
        retry=RetryPolicy(max_attempts=1),
        cache=False,  # every request must reach the server
        image_max_side=64,
    )
    rng = np.random.default_rng(0)
    images = [Image(rng.integers(0, 255, (48, 64, 3), dtype=np.uint8)) for _ in range(4)]
    messages = [[Message.user(*images, f"question {i}")] for i in range(requests)]
    # open the pool's connections before timing, as a long run would have them open
    await asyncio.gather(*(model.complete(m) for m in messages[:concurrency]))
    start = time.perf_counter()
    completions = await asyncio.gather(*(model.complete(m) for m in messages))
    elapsed = time.perf_counter() - start
    await model.aclose()
    failed = sum(1 for c in completions if not c.ok)
    if failed:
        raise SystemExit(f"{failed} requests failed: {completions[0].error}")
    return requests / elapsed


def run_server(delay_s: float, port_queue: multiprocessing.Queue) -> None:
    """The server runs in its own process so that it does not share the client's CPU time."""

    async def forever() -> None:
        server, port = await serve(delay_s)
        port_queue.put(port)
        async with server:
            await server.serve_forever()

    asyncio.run(forever())


async def main_async(args: argparse.Namespace, port: int) -> None:
    print(f"loopback server, {args.delay * 1000:.0f} ms per reply, 4 images of 64x48 per request\n")
    print(f"{'concurrency':>12}{'requests':>10}{'achieved/s':>12}{'ideal/s':>10}{'ratio':>8}")
    for concurrency in args.concurrency:
        requests = args.requests if concurrency > 1 else max(10, args.requests // 10)
        achieved = await measure(port, requests, concurrency)
        ideal = concurrency / args.delay
        ratio = achieved / ideal
        print(f"{concurrency:>12}{requests:>10}{achieved:>12.1f}{ideal:>10.1f}{ratio:>8.2f}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=500)
    parser.add_argument("--delay", type=float, default=0.2)
    parser.add_argument("--concurrency", type=lambda s: [int(v) for v in s.split(",")], default=[1, 8, 64])
    args = parser.parse_args()
    ports: multiprocessing.Queue = multiprocessing.Queue()
    server = multiprocessing.Process(target=run_server, args=(args.delay, ports), daemon=True)
    server.start()
    try:
        asyncio.run(main_async(args, ports.get(timeout=30)))
    finally:
        server.terminate()
    return 0


if __name__ == "__main__":
    sys.exit(main())
