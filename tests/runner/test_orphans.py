"""No orphans: a `vqakit eval` killed with -9 mid-run leaves no process behind. Its decode
workers (spawned processes) and multiprocessing's resource tracker used to live on, waiting for
work that would never come (every kill of 17 left three processes 30 s later); each worker now
watches the pipe from its parent and exits when it closes, and the tracker ends with the last
process that holds its pipe.

A real run: `vqakit eval` in a session of its own against a loopback OpenAI-compatible server
(so frames are encoded in the decode workers), real decoding of the sample benchmark's videos (64
frames a question: a run starts its workers once it has more than `PROCESS_FRAMES` to decode),
killed at a different moment of each round once its workers are up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from fake_server import FakeServer

from integrity_checks import group_members

ROUNDS = 3
GONE_WITHIN_S = 20.0  # a worker still starting (importing) when its parent dies exits once started


def lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_kill_9_mid_run_leaves_no_decode_worker_or_resource_tracker(tmp_path):
    left_over: list[list[str]] = []
    seen_workers = 0
    with FakeServer(default="ok:Answer: B", delay_s=0.2) as server:
        for round_ in range(ROUNDS):
            out = tmp_path / f"run{round_}"
            env = {
                **os.environ,
                "VQAKIT_CACHE_DIR": str(tmp_path / f"cache{round_}"),
                "PYTHONUNBUFFERED": "1",
            }
            command = [
                sys.executable, "-m", "vqakit", "eval", "sample", "--model",
                f"openai-compatible:{server.url}#m", "--frames", "uniform:64", "--concurrency", "2",
                "--no-frame-cache", "--out", str(out),
            ]  # fmt: skip
            process = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True
            )
            try:
                deadline = time.monotonic() + 120
                wanted = 2 + 3 * round_  # a later moment of the run each round
                while time.monotonic() < deadline and process.poll() is None:
                    members = group_members(process.pid)
                    if len(members) >= 3 and lines(out / "predictions.jsonl") >= wanted:
                        break
                    time.sleep(0.05)
                assert process.poll() is None, "the run ended before it could be killed"
                members = group_members(process.pid)
                seen_workers = max(seen_workers, sum("spawn_main" in member for member in members))
                os.kill(process.pid, signal.SIGKILL)
                process.wait()
                deadline = time.monotonic() + GONE_WITHIN_S
                while group_members(process.pid) and time.monotonic() < deadline:
                    time.sleep(0.1)
                left_over.append(group_members(process.pid))
            finally:
                if process.poll() is None:
                    process.kill()
                if group_members(process.pid):  # what a failed round left: not for the next to meet
                    os.killpg(process.pid, signal.SIGKILL)
            finished = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
            assert finished and all(prediction["error"] is None for prediction in finished)
    assert seen_workers >= 1, "no decode worker was running when the run was killed"
    assert left_over == [[]] * ROUNDS, left_over
