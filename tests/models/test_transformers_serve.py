"""The `openai-compatible:` backend against a real `transformers serve` on loopback, serving a
tiny random Qwen2.5-VL built in the test."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import time
import urllib.request

import numpy as np
import pytest

pytest.importorskip("transformers")
if shutil.which("transformers") is None:
    pytest.skip("transformers CLI not installed", allow_module_level=True)

from tiny_models import build_tiny_qwen25_vl

from vqakit.models import Frames, Image, Message, Model


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    model_dir = build_tiny_qwen25_vl(tmp_path_factory.mktemp("served"))
    hub_cache = tmp_path_factory.mktemp("hub")
    port = free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "OMP_NUM_THREADS": "1", "HF_HUB_CACHE": str(hub_cache)}
    process = subprocess.Popen(
        [
            "transformers",
            "serve",
            str(model_dir),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--device",
            "cpu",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as reply:
                if reply.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    else:
        process.kill()
        pytest.fail("transformers serve did not come up within 90 s")
    yield f"openai-compatible:http://127.0.0.1:{port}/v1#{model_dir}"
    process.terminate()
    process.wait(10)


def test_single_request_and_images(server):
    model = Model(f"{server}?max_tokens=5&thinking=false")
    try:
        text = model.complete_sync([Message.user("hello")])
        # random weights: most replies run to the 5-token limit (kept, marked truncated)
        assert text.ok or text.error.type == "truncated", text.error
        assert text.text is not None and text.usage.output_tokens > 0
        rng = np.random.default_rng(0)
        frames = Frames(
            tuple(rng.integers(0, 255, (56, 72, 3), dtype=np.uint8) for _ in range(2)), (0.0, 1.0)
        )
        image = model.complete_sync([Message.user(Image(np.zeros((60, 80, 3), np.uint8)), frames, "what?")])
        assert image.ok or image.error.type == "truncated", image.error
    finally:
        model.close()


def test_sixteen_concurrent_requests(server):
    model = Model(server, settings={"max_tokens": 4}, concurrency=16)

    async def run():
        try:
            return await asyncio.gather(*(model.complete([Message.user(f"question {i}")]) for i in range(16)))
        finally:
            await model.aclose()

    completions = asyncio.run(run())
    failed = [c.error for c in completions if not (c.ok or c.error.type == "truncated")]
    assert not failed and all(c.text is not None for c in completions), failed
