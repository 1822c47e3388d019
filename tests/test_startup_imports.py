"""`vqakit eval` reaches its first request within 0.3 s of interpreter and import time, on a warm
disk (bytecode compiled), measured by `python -X importtime`; and `vqakit eval --help` imports no
benchmark system's methods and none of PyAV, NumPy or Pillow.

The run measured is a new model over a benchmark whose frames the frame store holds (another
model was run on it first), the common case of a sweep: frames are read, not decoded, so the
run needs nothing of PyAV, NumPy or the JPEG encoders before its first request. Import times are
wall-clock and a loaded machine stretches them: each module's time is the least of up to ten
runs (noise only ever adds)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path

from fake_server import FakeServer

GOAL_S = 0.3  # issue 30's goal for the imports before the first request
BUDGET_S = 0.35  # what fails the suite: the goal, and the spread of this 2-core machine's
# least-of-ten measures (0.285-0.32 s at the goal's commit) so that noise alone never fails CI;
# a real regression (an SDK, NumPy or PyAV before the first request) costs far more
ATTEMPTS = 10  # runs taken at most; the test stops at the first that keeps to the budget
ROOT = Path(__file__).resolve().parents[1]


def child_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a warm disk: bytecode is compiled once and kept
    return env


def imports_before_first_request(server: FakeServer, command: list[str], env: dict[str, str]) -> dict:
    """{module: self seconds} of the imports `command` made before its first request reached the
    server (lines of `-X importtime` that came before)."""
    process = subprocess.Popen(
        [sys.executable, "-X", "importtime", *command],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.append((time.monotonic(), line))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    first = None
    while process.poll() is None and first is None:
        if server.requests:
            first = time.monotonic()
        time.sleep(0.001)
    out = process.stdout.read() if process.stdout else ""
    process.wait(300)
    reader.join(10)
    said = "".join(line for _, line in lines if not line.startswith("import time:"))
    assert first is not None, f"no request reached the server: {out}\n{said}"
    found: dict[str, float] = {}
    for at, line in lines:
        if at > first or not line.startswith("import time:") or "self [us]" in line:
            continue
        own, _, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
        found[name] = found.get(name, 0.0) + int(own) / 1e6
    return found


def test_eval_reaches_its_first_request_within_the_import_budget(tmp_path: Path):
    env = {**child_env(tmp_path), "VQAKIT_CACHE_DIR": str(tmp_path / "cache")}
    with FakeServer() as server:
        warm = ["-m", "vqakit", "eval", "sample", "--model", f"openai-compatible:{server.url}#first"]
        done = subprocess.run(
            [sys.executable, *warm, "--out", str(tmp_path / "first")], env=env, capture_output=True
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        least: dict[str, float] = defaultdict(lambda: float("inf"))
        for attempt in range(ATTEMPTS):
            server.requests.clear()
            command = [
                "-m",
                "vqakit",
                "eval",
                "sample",
                "--model",
                f"openai-compatible:{server.url}#second{attempt}",
            ]
            found = imports_before_first_request(
                server, [*command, "--out", str(tmp_path / f"run{attempt}")], env
            )
            for name, seconds in found.items():
                least[name] = min(least[name], seconds)
            if sum(least.values()) <= BUDGET_S:
                break
    total = sum(least.values())
    heaviest = sorted(least.items(), key=lambda item: -item[1])[:15]
    listing = "\n".join(f"  {seconds * 1000:6.1f} ms {name}" for name, seconds in heaviest)
    assert total <= BUDGET_S, (
        f"{total:.3f} s of imports before the first request (budget {BUDGET_S} s, goal {GOAL_S} s); "
        f"the heaviest:\n{listing}"
    )
    assert not {"av", "PIL", "numpy", "torch", "aiohttp"} & set(least), sorted(least)


def test_eval_help_imports_no_method_of_a_system(tmp_path: Path):
    code = (
        "import sys; from vqakit.cli import main\n"
        "try: main(['eval', '--help'])\n"
        "except SystemExit: pass\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=child_env(tmp_path), capture_output=True, text=True
    )
    modules = set(done.stdout.split("MODULES", 1)[1].split())
    assert "--method" in done.stdout and "--prompt" in done.stdout
    methods = {
        "vqakit.methods._direct",
        "vqakit.systems.egofact.rag",
        "vqakit.systems.egofact.baselines",
        "vqakit.systems.minerva_ego.hints",
        "vqakit.systems.movierecapsqa.settings",
        "vqakit.systems.movierecapsqa.official",
        "vqakit.systems.presets.videomme",
    }
    assert not methods & modules
    assert not {"av", "PIL", "numpy", "torch"} & modules
