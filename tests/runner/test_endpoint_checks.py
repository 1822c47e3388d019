"""`vqakit eval` against a server that is down, wrong or stuck: the endpoint is checked before
anything is written (exit 2 in seconds, one line naming it); during a run, an endpoint whose
requests keep failing the same way stops the run with what it finished kept (exit 1), and the
same command resumes; time limits are options, spec settings and manifest entries."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from bad_servers import NotFoundServer, SilentServer, closed_port
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _eval(tmp_path: Path, *arguments: str) -> tuple[int, str, float]:
    """`vqakit eval sample ...` in-process, in `tmp_path` as the working directory."""
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        started = time.monotonic()
        result = CliRunner().invoke(main, ["eval", "sample", *arguments])
        return result.exit_code, result.output, time.monotonic() - started
    finally:
        os.chdir(old)


def _error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.startswith("Error: ")]
    assert len(lines) == 1, output
    return lines[0]


def test_a_closed_port_exits_2_in_seconds_and_writes_nothing(tmp_path: Path):
    port = closed_port()
    code, output, took = _eval(tmp_path, "--model", f"openai-compatible:http://127.0.0.1:{port}/v1#m")
    assert code == 2 and took < 5
    line = _error_line(output)
    assert f"http://127.0.0.1:{port}/v1/models: connection refused" in line and "--no-preflight" in line
    assert list(tmp_path.iterdir()) == []  # no runs/ folder


def test_a_404_server_exits_2_with_the_status_and_url(tmp_path: Path):
    with NotFoundServer() as server:
        code, output, took = _eval(tmp_path, "--model", f"openai-compatible:{server.url}#m")
    assert code == 2 and took < 5
    assert f"HTTP 404 from {server.url}/chat/completions: 404 page not found" in _error_line(output)
    assert list(tmp_path.iterdir()) == []


def test_a_stuck_server_is_named_by_the_check(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("VQAKIT_PREFLIGHT_TIMEOUT", "1")
    with SilentServer() as server:
        code, output, took = _eval(tmp_path, "--model", f"openai-compatible:{server.url}#m")
    assert code == 2 and took < 5
    assert f"{server.url}/models: no answer within 1 s" in _error_line(output)


def test_a_judge_endpoint_that_is_down_is_named(tmp_path: Path):
    port = closed_port()
    with FakeServer(default="ok:Answer: A") as server:
        code, output, _ = _eval(
            tmp_path,
            "--model",
            f"openai-compatible:{server.url}#m",
            "--judge",
            f"open=openai-compatible:http://127.0.0.1:{port}/v1#j",
        )
        assert server.requests == []
    assert code == 2 and f"judge open openai-compatible:http://127.0.0.1:{port}/v1#j: " in _error_line(output)


def _vqakit(cwd: Path, *arguments: str) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT / "src"),
        "OMP_NUM_THREADS": "1",
        "VQAKIT_PROGRESS_SECONDS": "600",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "vqakit", *arguments],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_without_the_check_a_stuck_server_is_said_after_the_first_timeout_and_stops_the_run(tmp_path: Path):
    with SilentServer() as server:
        started = time.monotonic()
        process = _vqakit(
            tmp_path, "eval", "sample", "--model", f"openai-compatible:{server.url}#m",
            "--request-timeout", "1", "--no-preflight",
        )  # fmt: skip
        while not (first := process.stderr.readline()).startswith("retrying ") and first:
            pass
        first_after = time.monotonic() - started
        _, err = process.communicate(timeout=120)
    # the first retry line comes after the first request's time limit (and the frames' decoding),
    # not after the default 120 s
    assert "timeout: no reply within 1s; attempt 2 of 6" in first
    assert first_after < 30
    assert process.returncode == 1
    assert f"stopped: the last 20 requests to {server.url}/chat/completions all failed the same way" in err
    assert "rerun the same command to resume" in err
    assert (tmp_path / "runs/sample-0.1.0-direct-m/config.yaml").is_file()


def test_a_server_that_dies_mid_run_stops_it_and_the_same_command_resumes(tmp_path: Path):
    """Three answers, then a server that only fails: the run stops (exit 1) with the three kept;
    once the server is back the same command runs the rest."""
    with FakeServer(default="503:0") as server:
        server.script.extend(["ok:Answer: A"] * 3)
        command = ["--model", f"openai-compatible:{server.url}#m", "--concurrency", "1"]
        code, output, _ = _eval(tmp_path, *command)
        assert code == 1, output
        assert "stopped: the last 20 requests to" in output and "(server: HTTP 503 from" in output
        assert "3 answers kept in runs/sample-0.1.0-direct-m" in output
        server.default = "ok:Answer: B"
        code, output, _ = _eval(tmp_path, *command)
    assert code == 0, output
    assert "(3 resumed, 43 run)" in output


def test_time_limits_are_options_in_the_help_and_in_the_manifest(tmp_path: Path):
    text = CliRunner().invoke(main, ["eval", "--help"], terminal_width=200).output
    assert "--request-timeout SECONDS" in text and "(default 120;" in text and "?timeout=S" in text
    assert "--total-timeout SECONDS" in text and "(default 600;" in text and "--no-preflight" in text
    with FakeServer(default="ok:Answer: A") as server:
        spec = f"openai-compatible:{server.url}#m"
        base = ["--model", spec, "--limit", "2", "--out", "run", "--judge", f"open={spec}?timeout=7"]
        code, output, _ = _eval(tmp_path, *base, "--request-timeout", "30")
        assert code == 0, output
        manifest = json.loads((tmp_path / "run/manifest.json").read_text())
        assert manifest["time_limits"] == {
            "model": {"request_s": 30.0, "total_s": 600.0},
            "judge open": {"request_s": 7.0, "total_s": 600.0},
        }
        # a changed time limit is no new run: the same folder resumes
        code, output, _ = _eval(tmp_path, *base[:-1], f"open={spec}?timeout=9", "--total-timeout", "60")
    assert code == 0, output
    assert "(2 resumed, 0 run)" in output


def test_sweep_checks_the_endpoint_before_its_first_run(tmp_path: Path):
    port = closed_port()
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        result = CliRunner().invoke(
            main,
            [
                "sweep",
                "sample",
                "--model",
                f"openai-compatible:http://127.0.0.1:{port}/v1#m",
                "--frames",
                "uniform:1,2",
            ],
        )
    finally:
        os.chdir(old)
    assert result.exit_code == 2 and f"http://127.0.0.1:{port}/v1/models: connection refused" in result.output
    assert list(tmp_path.iterdir()) == []
