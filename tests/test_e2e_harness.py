"""The end-to-end benchmark's harness (benchmarks/e2e_common.py) stops on a failed eval: an eval
that exits with an error, or whose results.json counts failed questions, raises `RunFailed` with
the reason instead of giving figures."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from chat_server import ChatServer
from e2e_common import MEDIA, RunFailed, check_results, fixture_questions, run_eval_command, write_bench


def test_an_eval_that_exits_with_an_error_stops_the_section(tmp_path):
    question = next(q for q in fixture_questions(1) if q["id"].startswith("bikes"))
    gone = {**question, "id": "gone", "videos": [{"path": "media/gone.mp4"}]}  # cannot be answered
    bench = write_bench(tmp_path / "bench", {"bikes": MEDIA / "bikes.mp4"}, [question, gone], "uniform:2")
    failed = r"exited with status 1:(.|\n)*\(video 1\)"
    with ChatServer(0.0) as server, pytest.raises(RunFailed, match=failed):
        run_eval_command(bench, tmp_path / "run", server, tmp_path / "cache")


def test_failed_questions_in_the_results_stop_the_section(tmp_path):
    (tmp_path / "predictions.jsonl").write_text("{}\n{}\n")
    results = {"errors": {"n": 1, "by_kind": {"http": 1}}}
    (tmp_path / "results.json").write_text(json.dumps(results))
    with pytest.raises(RunFailed, match=r"1 questions failed \(http 1\)"):
        check_results(tmp_path, 2)
    (tmp_path / "results.json").write_text(json.dumps({"errors": {"n": 0}}))
    assert check_results(tmp_path, 2)["errors"]["n"] == 0
    with pytest.raises(RunFailed, match="2 of 3 questions answered"):
        check_results(tmp_path, 3)
