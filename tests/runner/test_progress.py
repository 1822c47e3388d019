"""Progress that never lies, in real processes against a real loopback server: not-applicable
samples are counted apart from errors; with stderr not a terminal, a line every few seconds and
one as each retry begins; Ctrl-C says how many answers were kept and that the same command
resumes; the lock file is gone once a run ends."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from fake_server import FakeServer

from vqakit.runner import EvalConfig, RunProgress, run_eval
from vqakit.runner._lock import LOCK

ROOT = Path(__file__).resolve().parents[2]


def _interruptible() -> None:
    """Ctrl-C as on a terminal: a suite started in the background by a non-interactive shell
    (`.ci/run ... &`) passes SIGINT on ignored, and Python then never raises KeyboardInterrupt."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def vqakit(*arguments: str, **extra_env: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1", **extra_env}
    return subprocess.Popen(
        [sys.executable, "-m", "vqakit", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=_interruptible,
    )


def test_not_applicable_samples_are_not_errors(tmp_path: Path):
    seen: list[RunProgress] = []
    run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "run", on_progress=seen.append)
    last = seen[-1]
    assert (last.done, last.total, last.errors, last.not_applicable) == (46, 46, 0, 10)
    assert not (tmp_path / "run" / LOCK).exists()  # released and removed


def test_without_a_terminal_progress_and_retries_are_lines(tmp_path: Path):
    """A server that fails before it answers: no long silence, every retry said as it begins."""
    with FakeServer(default="ok:Answer: A") as server:
        server.script.extend(["500:1", "503:1", "500:1"])  # each asks to wait 1 s (Retry-After)
        process = vqakit(
            "eval", "sample", "--model", f"openai-compatible:{server.url}#m", "--limit", "2",
            "--concurrency", "1", "--frames", "uniform:1", "--out", str(tmp_path / "run"),
            VQAKIT_PROGRESS_SECONDS="0.5",
        )  # fmt: skip
        out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    retries = [line for line in err.splitlines() if line.startswith("retrying ")]
    assert len(retries) == 3
    assert "#m (ped-viewpoint): " in retries[0]  # the model and the sample whose call is retried
    # the HTTP status, the URL and the body's first line
    assert re.search(
        r"server: HTTP 500 from http://127\.0\.0\.1:\d+/v1/chat/completions: scripted 500; "
        r"attempt 2 of 6 in 1\.0 s",
        retries[0],
    )
    assert "attempt 3 of 6" in retries[1] and "attempt 4 of 6" in retries[2]
    ticks = [line for line in err.splitlines() if line.startswith("direct: ") and " done, " in line]
    assert ticks and any("1 retries in progress" in line for line in ticks)
    assert "0 errors" in ticks[0]
    assert "direct: MCQ accuracy" in out  # the summary on stdout, after every progress line


def test_ctrl_c_keeps_the_answers_and_says_how_to_resume(tmp_path: Path):
    run = tmp_path / "run"
    # two answers, then the server holds the third: the run is still going when Ctrl-C comes,
    # however slowly a loaded machine writes the first lines
    with FakeServer(default="slow:20") as server:
        server.script.extend(["ok:Answer: A"] * 2)
        command = [
            "eval", "sample", "--model", f"openai-compatible:{server.url}#m", "--limit", "8",
            "--concurrency", "1", "--frames", "uniform:1", "--out", str(run),
        ]  # fmt: skip
        process = vqakit(*command)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            predictions = run / "predictions.jsonl"
            if predictions.exists() and len(predictions.read_text().splitlines()) >= 2:
                break
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=60)
        assert process.returncode == 130, err
        kept = len((run / "predictions.jsonl").read_text().splitlines())
        assert f"interrupted: {kept} answers kept; rerun the same command to resume" in err
        assert "Aborted!" not in err and "Traceback" not in err
        assert not (run / LOCK).exists()
        server.default = "ok:Answer: A"
        again = vqakit(*command)
        out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert f"({kept} resumed, {8 - kept} run)" in out
