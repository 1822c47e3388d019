"""Ranking runs under two rubric judges. The judges are loopback HTTP servers that grade by the
run's reasoning text: test doubles at the model boundary, since the test is about what judges say."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.systems.minerva_ego.rank import kendall_tau, rank_runs


def test_kendall_tau():
    assert kendall_tau(["a", "b", "c"], ["a", "b", "c"]) == 1.0
    assert kendall_tau(["a", "b", "c"], ["c", "b", "a"]) == -1.0
    assert kendall_tau(["a", "b", "c"], ["b", "a", "c"]) == pytest.approx(1 / 3)


def judge_server(grades: dict[str, int]) -> ThreadingHTTPServer:
    """Answers every chat request with a MiRA grade chosen by which run's words are in the prompt."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = body["messages"][-1]["content"]
            score = next(value for word, value in grades.items() if f"{word} reasoning" in prompt)
            text = "\n".join(
                f"[{c}: {score}]"
                for c in ("Perceptual Correctness", "Temporal Grounding", "Logical Reasoning", "Completeness")
            )
            reply = json.dumps(
                {"choices": [{"message": {"content": text}, "finish_reason": "stop"}]}
            ).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_two_judges_rank_three_runs(tmp_path):
    bench = load_benchmark("sample")
    runs = []
    for name in ("weak", "mid", "strong"):
        replies = tmp_path / f"{name}.jsonl"
        replies.write_text(
            "".join(
                json.dumps({"sample_id": s.id, "reply": f"{name} reasoning. Answer: A"}) + "\n"
                for s in bench.samples
            )
        )
        runs.append(
            run_eval(
                EvalConfig(bench="sample", method="blind", model=f"replay:{replies}"), tmp_path / name
            ).folder
        )
    judge_a = judge_server({"weak": 0, "mid": 1, "strong": 2})
    judge_b = judge_server({"weak": 1, "mid": 0, "strong": 2})
    specs = [
        f"openai-compatible:http://127.0.0.1:{server.server_address[1]}/v1#judge"
        for server in (judge_a, judge_b)
    ]
    try:
        result = rank_runs(runs, specs)
        cli = subprocess.run(
            [
                sys.executable,
                "-m",
                "vqakit",
                "rank",
                *map(str, runs),
                "--judges",
                ",".join(specs),
                "--out",
                str(tmp_path / "rank.json"),
            ],
            capture_output=True,
            text=True,
        )
    finally:
        judge_a.shutdown()
        judge_b.shutdown()
    names = {spec: [p.split("/")[-1] for p in result["rankings"][spec]] for spec in specs}
    assert names[specs[0]] == ["strong", "mid", "weak"]
    assert names[specs[1]] == ["strong", "weak", "mid"]
    assert result["scores"][specs[0]][str(runs[2])]["total"] == 8.0
    assert list(result["kendall_tau"].values()) == [pytest.approx(1 / 3)]
    assert cli.returncode == 0, cli.stderr
    assert "Kendall tau +0.33" in cli.stdout  # judgments were stored: the CLI reuses them
    page = (tmp_path / "rank.html").read_text()
    assert page.count("<h2>Judge") == 2 and "Kendall tau +0.33" in page
