"""Many people at once: simulated participants and reviewers against one studio on loopback.

    python benchmarks/studio_load.py [--participants 50] [--reviewers 10] [--questions 10]
        [--decisions 20] [--duration 120] [--think 0.3] [--resend 0.1] [--json FILE]

The studio runs as its own process (`vqakit studio sample --person r01 ... --participant p01
...`, the links it prints give each simulated person their token), over the shipped `sample`
benchmark. Each participant, as the answer page does: asks for the next question, loads the
frames it shows (six at a time, as a browser does), thinks, sends the answer; each reviewer loads
the queue, then for each sample of it the sample, its frame times and two frames, thinks, and sends
a decision (keep, drop or edit). A share (`--resend`) of the answers and decisions is sent a second
time with the same request id, as a page does after a lost reply. Every simulated person stops
after their questions or decisions, and everyone stops at `--duration` seconds.

Reported: for each action, how many, the median and the 99th percentile of its latency (ms), and
the requests sent again after a dropped connection (as the pages do, with the same request id),
and the failures (any status other than the expected ones, or three dropped tries); a baseline,
the latency of an empty response (`/favicon.ico`) from the same server before the load and
under it, with each action's median as a ratio to the idle baseline's; the writes acknowledged
(unique request ids answered 201 or 200) against the lines in the logs (review/*.jsonl, each
run's answers.jsonl and predictions.jsonl): they must be equal, nothing lost and nothing written
twice; the server's peak memory (VmHWM).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import AsyncIterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    """Latencies and failures per action, and the writes acknowledged."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = defaultdict(list)
        self.failures: dict[str, list[str]] = defaultdict(list)
        self.acknowledged: dict[str, set[str]] = defaultdict(set)  # kind -> request ids
        self.dropped: dict[str, int] = defaultdict(int)  # connections dropped, request sent again

    async def call(self, action: str, send, expected=(200,)) -> httpx.Response | None:
        """`send()` (a request, made again on a dropped connection as the pages do: the same
        request id for a write), timed from the first try."""
        started = time.perf_counter()
        for attempt in range(3):
            try:
                response = await send()
                break
            except httpx.TransportError as error:
                self.dropped[action] += 1
                if attempt == 2:
                    self.failures[action].append(f"{type(error).__name__}: {error}")
                    return None
                await asyncio.sleep(0.2)
        self.times[action].append((time.perf_counter() - started) * 1000)
        if response.status_code not in expected:
            self.failures[action].append(f"{response.status_code}: {response.text[:200]}")
        return response


def start_studio(
    folder: Path, participants: int, reviewers: int, questions: int
) -> tuple[subprocess.Popen, str, dict]:
    """The studio as its own process: (process, address, {person: token})."""
    args = [sys.executable, "-m", "vqakit", "studio", "sample", "--port", "0", "--host", "127.0.0.1"]
    args += [
        "--limit",
        str(questions),
        "--review-dir",
        str(folder / "review"),
        "--runs",
        str(folder / "runs"),
    ]
    for number in range(1, reviewers + 1):
        args += ["--person", f"r{number:02d}"]
    for number in range(1, participants + 1):
        args += ["--participant", f"p{number:02d}"]
    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        "VQAKIT_STUDIO_KEY": str(folder / "studio.key"),
        "VQAKIT_CACHE_DIR": str(folder / "cache"),
        "PYTHONPATH": str(ROOT / "src"),
    }
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    tokens: dict[str, str] = {}
    address = ""
    deadline = time.monotonic() + 120
    while len(tokens) < participants + reviewers:
        line = process.stdout.readline()
        if (not line and process.poll() is not None) or time.monotonic() > deadline:
            process.kill()
            raise SystemExit(f"the studio did not start: {line}{process.stdout.read()}")
        if found := re.match(r"vqakit studio at (\S+)", line):
            address = found[1].rstrip("/")
        if found := re.match(r"\s+(\S+) \([a-z, ]+\): \S+\?token=(\S+)", line):
            tokens[found[1]] = found[2]
    return process, address, tokens


@contextlib.asynccontextmanager
async def client(address: str, token: str) -> AsyncIterator[httpx.AsyncClient]:
    """A person's client: their token, and their session's CSRF token on every request."""
    async with httpx.AsyncClient(
        base_url=address, headers={"authorization": f"Bearer {token}"}, timeout=120
    ) as web:
        web.headers["x-csrf-token"] = (await web.get("/api/session")).json()["csrf"]
        yield web


async def send_write(record: Recorder, kind: str, web: httpx.AsyncClient, url: str, body: dict, resend: bool):
    """A write, and (with `resend`) the same request again, as after a lost reply."""
    for attempt in range(2 if resend else 1):
        action = f"{kind}{' (resent)' if attempt else ''}"
        response = await record.call(action, lambda: web.post(url, json=body), expected=(201, 200))
        if response is not None and response.status_code in (200, 201):
            record.acknowledged[kind].add(body["request_id"])


async def participant(record: Recorder, address: str, token: str, stop: float, options) -> None:
    chance = random.Random(token)
    async with client(address, token) as web:
        while time.monotonic() < stop:
            shown = await record.call("next question", lambda: web.get("/api/next?bench=sample"))
            if shown is None or shown.status_code != 200 or shown.json()["sample"] is None:
                return
            sample = shown.json()["sample"]
            frames = [
                f"/frames/sample/{i}?sample={sample['id']}" for i in range(len(shown.json()["frames_s"]))
            ]
            for first in range(0, len(frames), 6):
                await asyncio.gather(
                    *(record.call("frame", lambda url=url: web.get(url)) for url in frames[first : first + 6])
                )
            await asyncio.sleep(chance.uniform(0, 2 * options.think))
            body = {"elapsed_s": 3.0, "request_id": uuid.uuid4().hex}
            if sample["mcq"]:
                body["choice"] = chance.randrange(len(sample["options"]))
            else:
                body["text"] = "a simulated answer"
            await send_write(
                record,
                "answer",
                web,
                f"/api/answer/{sample['id']}?bench=sample",
                body,
                chance.random() < options.resend,
            )


async def reviewer(record: Recorder, address: str, token: str, stop: float, options) -> None:
    chance = random.Random(token)
    async with client(address, token) as web:
        queue = await record.call("review queue", lambda: web.get("/api/queue?bench=sample"))
        if queue is None or queue.status_code != 200:
            return
        items = [item["id"] for item in queue.json()["items"]]
        chance.shuffle(items)
        for sample_id in items[: options.decisions]:
            if time.monotonic() > stop:
                return
            sample_url, times_url = (
                f"/api/sample/{sample_id}?bench=sample",
                f"/api/frames/{sample_id}?bench=sample",
            )
            shown = await record.call("review sample", lambda url=sample_url: web.get(url))
            times = await record.call("frame times", lambda url=times_url: web.get(url))
            if shown is None or times is None or times.status_code != 200:
                continue
            for url in times.json()["urls"][:2]:
                await record.call("frame", lambda url=url: web.get(url))
            await asyncio.sleep(chance.uniform(0, 2 * options.think))
            kind = chance.choice(["keep", "keep", "drop", "edit"])
            body: dict = {"decision": kind, "request_id": uuid.uuid4().hex}
            if kind == "drop":
                body["reason"] = chance.choice(["ambiguous", "blind", "wrong-gold"])
            elif kind == "edit":
                body["edit"] = {"category": chance.choice(["scene", "object", "temporal"])}
            await send_write(
                record,
                "decision",
                web,
                f"/api/review/{sample_id}?bench=sample",
                body,
                chance.random() < options.resend,
            )


async def baseline(address: str, token: str, count: int) -> list[float]:
    found = []
    async with client(address, token) as web:
        for _ in range(count):
            started = time.perf_counter()
            await web.get("/favicon.ico")
            found.append((time.perf_counter() - started) * 1000)
            await asyncio.sleep(0.05)
    return found


async def run_load(address: str, tokens: dict, options) -> tuple[Recorder, list[float], list[float], float]:
    record = Recorder()
    idle = await baseline(address, tokens["r01"], 20)
    stop = time.monotonic() + options.duration
    started = time.perf_counter()
    people = [
        participant(record, address, token, stop, options)
        for name, token in tokens.items()
        if name.startswith("p")
    ] + [
        reviewer(record, address, token, stop, options)
        for name, token in tokens.items()
        if name.startswith("r")
    ]
    work = asyncio.gather(*people)
    loaded = asyncio.create_task(baseline(address, tokens["r01"], 40))
    await work
    wall = time.perf_counter() - started
    return record, idle, await loaded, wall


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def lines_in(paths: list[Path]) -> tuple[int, set[str]]:
    """(lines, the distinct request ids among them) of JSONL files."""
    count, ids = 0, set()
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            count += 1
            ids.add(json.loads(line)["request_id"])
    return count, ids


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--participants", type=int, default=50)
    parser.add_argument("--reviewers", type=int, default=10)
    parser.add_argument(
        "--questions", type=int, default=10, help="questions each participant answers (--limit)"
    )
    parser.add_argument("--decisions", type=int, default=20, help="decisions each reviewer makes")
    parser.add_argument("--duration", type=float, default=120, help="seconds; everyone stops then")
    parser.add_argument("--think", type=float, default=0.3, help="mean seconds a person thinks before acting")
    parser.add_argument("--resend", type=float, default=0.1, help="share of writes sent twice")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    options = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="vqakit-studio-load-"))
    server, address, tokens = start_studio(folder, options.participants, options.reviewers, options.questions)
    try:
        record, idle, loaded, wall = asyncio.run(run_load(address, tokens, options))
        peak = re.search(r"VmHWM:\s+(\d+) kB", Path(f"/proc/{server.pid}/status").read_text())
    finally:
        server.terminate()
        server.wait(30)
    idle_median = statistics.median(idle)
    rows = []
    for action in sorted(record.times):
        values = record.times[action]
        rows.append(
            {
                "action": action,
                "n": len(values),
                "p50_ms": round(statistics.median(values), 1),
                "p99_ms": round(percentile(values, 0.99), 1),
                "p50_vs_idle": round(statistics.median(values) / idle_median, 1),
                "dropped, sent again": record.dropped[action],
                "failures": len(record.failures[action]),
            }
        )
    decisions, decision_ids = lines_in(sorted((folder / "review").glob("*.jsonl")))
    answers, answer_ids = lines_in(sorted((folder / "runs").glob("*/answers.jsonl")))
    predictions = sum(len(p.read_text().splitlines()) for p in (folder / "runs").glob("*/predictions.jsonl"))
    writes = {
        "decisions": {
            "acknowledged": len(record.acknowledged["decision"]),
            "lines": decisions,
            "lost": len(record.acknowledged["decision"] - decision_ids),
            "written twice": decisions - len(decision_ids),
        },
        "answers": {
            "acknowledged": len(record.acknowledged["answer"]),
            "lines": answers,
            "lost": len(record.acknowledged["answer"] - answer_ids),
            "written twice": answers - len(answer_ids),
            "predictions": predictions,
        },
    }
    figures = {
        "settings": vars(options) | {"json": str(options.json) if options.json else None},
        "wall_s": round(wall, 1),
        "baseline_ms": {
            "idle_p50": round(idle_median, 1),
            "idle_p99": round(percentile(idle, 0.99), 1),
            "loaded_p50": round(statistics.median(loaded), 1),
            "loaded_p99": round(percentile(loaded, 0.99), 1),
        },
        "actions": rows,
        "writes": writes,
        "server_peak_mb": round(int(peak[1]) / 1024, 1) if peak else None,
        "failures": {action: found[:3] for action, found in record.failures.items() if found},
        "load_average": os.getloadavg(),
    }
    print(f"{options.participants} participants and {options.reviewers} reviewers, {wall:.1f} s")
    print(
        "| action | n | p50 ms | p99 ms | p50 / idle baseline | connection dropped, sent again | failures |"
    )
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        cells = [
            row[key]
            for key in ("action", "n", "p50_ms", "p99_ms", "p50_vs_idle", "dropped, sent again", "failures")
        ]
        print("| " + " | ".join(str(cell) for cell in cells) + " |")
    base = figures["baseline_ms"]
    print(
        f"baseline (empty response): idle p50 {base['idle_p50']} ms, p99 {base['idle_p99']} ms; "
        f"under load p50 {base['loaded_p50']} ms, p99 {base['loaded_p99']} ms"
    )
    for kind, counts in writes.items():
        print(f"{kind}: " + ", ".join(f"{key} {value}" for key, value in counts.items()))
    print(f"server peak memory: {figures['server_peak_mb']} MB; load average {figures['load_average']}")
    if options.json:
        options.json.write_text(json.dumps(figures, indent=1))
    lost = sum(counts["lost"] + counts["written twice"] for counts in writes.values())
    mismatch = writes["answers"]["predictions"] != writes["answers"]["lines"]
    if lost or mismatch or any(row["failures"] for row in rows):
        raise SystemExit("lost, repeated or failed requests: see above")


if __name__ == "__main__":
    main()
