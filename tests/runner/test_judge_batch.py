"""`vqakit eval --judge-batch`: the judges' pass through the providers' batch APIs, against the
loopback fake of those endpoints (predictions come from a replay file: the test is about the
judges). Per-request failures become judgment errors; a run that does not wait, or is killed
mid-batch, resumes by polling the same batch; multi-step judges take one round per step."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_batch_server import FakeBatchServer

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import LETTERS, Judge, judge_reply
from vqakit.scoring._judges import _JUDGES

SECRET = "sk-test-0123456789abcdefSECRET"
BENCH = load_benchmark("sample")
OPEN = [s for s in BENCH.samples if not s.is_mcq]
FAILING = OPEN[1]


def answers(tmp_path: Path) -> Path:
    path = tmp_path / "answers.jsonl"
    lines = [
        {"sample_id": s.id, "reply": f"Answer: {LETTERS[s.answer]}" if s.is_mcq else f"answer to {s.id}."}
        for s in BENCH.samples
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def config(tmp_path: Path, monkeypatch, server: FakeBatchServer, provider: str = "openai", **fields: Any):
    """A blind run with the `open` judge on the provider's API (the fake, through the SDKs'
    base-URL variables), in batch mode."""
    if provider == "openai":
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        spec = "openai:judge-test"
    else:
        pytest.importorskip("anthropic")
        monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
        spec = "anthropic:claude-test"
    settings = {"judges": {"open": spec}, "judge_batch": True, "judge_batch_poll_s": 0.01, **fields}
    return EvalConfig(bench="sample", method="blind", model=f"replay:{answers(tmp_path)}", **settings)


def judgments(folder: Path) -> dict[tuple[str, str], dict]:
    path = folder / "judgments.jsonl"
    lines = [json.loads(line) for line in path.open()] if path.exists() else []
    return {(line["kind"], line["sample_id"]): line for line in lines}


def events(folder: Path) -> list[str]:
    return [json.loads(line)["event"] for line in (folder / "judge_batches.jsonl").open()]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_judges_grade_through_one_batch(tmp_path, monkeypatch, provider):
    folder = tmp_path / "run"
    notes: list[str] = []
    with FakeBatchServer(
        polls_to_end=2, fail=(f"answer to {FAILING.id}.",), reply=lambda p: "yes - same"
    ) as server:
        run = config(tmp_path, monkeypatch, server, provider)
        outcome = run_eval(run, folder, on_note=notes.append)
        assert outcome.judgments_pending == 0 and server.creates == 1
        found = judgments(folder)
        assert len(found) == len(OPEN)
        failed = found[("open", FAILING.id)]
        assert failed["verdict"] is None and "scripted failure" in failed["error"]
        assert all(found[("open", s.id)]["verdict"] is True for s in OPEN if s is not FAILING)
        assert events(folder) == ["intent", "submitted", "ended"]
        assert any("submitted batch" in note for note in notes)
        scores = {row["sample_id"]: row for row in map(json.loads, (folder / "scores.jsonl").open())}
        assert scores[FAILING.id]["correct"] is None and scores[OPEN[0].id]["correct"] is True
        for path in folder.rglob("*"):
            if path.is_file() and path.suffix in (".jsonl", ".json", ".yaml", ".html"):
                assert SECRET not in path.read_text(), path
        server.fail = ()
        again = run_eval(run, folder)  # the failed judgment is asked again, alone
    assert server.creates == 2 and len(server.batches()[-1]["_requests"]) == 1
    assert judgments(folder)[("open", FAILING.id)]["verdict"] is True
    assert again.results["open_ended"]["n"] == len(OPEN)


def test_submit_now_collect_later(tmp_path, monkeypatch):
    folder, state = tmp_path / "run", tmp_path / "provider.json"
    with FakeBatchServer(state, polls_to_end=3) as server:
        run = config(tmp_path, monkeypatch, server, judge_batch_wait=False)
        first = run_eval(run, folder)
    assert first.judgments_pending == len(OPEN) and first.results["judgments_pending"] == len(OPEN)
    assert judgments(folder) == {} and events(folder) == ["intent", "submitted"]
    for polls in (2, 3):  # a later process each time, the provider restarted on another port
        with FakeBatchServer(state, polls_to_end=3) as server:
            monkeypatch.setenv("OPENAI_BASE_URL", server.url)
            later = run_eval(run, folder)
        assert server.creates == 1 and server.batches()[0]["_polls"] == polls
    assert later.judgments_pending == 0 and "judgments_pending" not in later.results
    assert len(judgments(folder)) == len(OPEN) and events(folder) == ["intent", "submitted", "ended"]


def test_outstanding_batches_are_collected_without_the_flag(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    notes: list[str] = []
    with FakeBatchServer(polls_to_end=2) as server:
        run = config(tmp_path, monkeypatch, server, judge_batch_wait=False)
        assert run_eval(run, folder).judgments_pending == len(OPEN)
        plain = run.model_copy(update={"judge_batch": False, "judge_batch_wait": True})
        outcome = run_eval(plain, folder, on_note=notes.append)
    assert outcome.judgments_pending == 0 and server.creates == 1
    assert any("outstanding" in note for note in notes)


KILLED_RUN = """
import sys
from vqakit.runner import EvalConfig, run_eval
run_eval(EvalConfig.model_validate_json(sys.argv[1]), sys.argv[2])
"""


def test_a_run_killed_mid_batch_polls_the_same_batch(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    with FakeBatchServer(polls_to_end=10**9) as server:
        run = config(tmp_path, monkeypatch, server, judge_batch_poll_s=0.05)
        child = subprocess.Popen(
            [sys.executable, "-c", KILLED_RUN, run.model_dump_json(), str(folder)], env=dict(os.environ)
        )
        deadline = time.monotonic() + 120
        while server.polls() < 2 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert child.poll() is None, "the first run ended before it was killed"
        assert server.polls() >= 2, "the first run never polled its batch"
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        assert events(folder) == ["intent", "submitted"] and judgments(folder) == {}
        server.polls_to_end = 1  # the batch ends at its next poll
        outcome = run_eval(run, folder)
    assert outcome.judgments_pending == 0 and len(judgments(folder)) == len(OPEN)
    assert server.creates == 1 and server.uploads == 1  # no second submission


class ClaimsJudge(Judge):
    """Two steps, as claim-based judges: extract claims, then check them."""

    name = "test-claims"

    def wants(self, sample, prediction, earlier):
        return not sample.is_mcq

    async def grade(self, model, sample, prediction, earlier):
        claims, error = await judge_reply(model, f"List the claims of: {prediction.reply}", sample.id)
        if error:
            return {"raw": claims, "claims": None, "error": error}
        checked, error = await judge_reply(model, f"Check the claims: {claims}", sample.id)
        return {"raw": checked, "claims": claims, "error": error}


class ClaimScoreJudge(Judge):
    """Reads the claims judge's record."""

    name = "test-claim-score"
    needs = ("test-claims",)

    def wants(self, sample, prediction, earlier):
        return not sample.is_mcq

    async def grade(self, model, sample, prediction, earlier):
        raw, error = await judge_reply(model, f"Score: {earlier['test-claims']['raw']}", sample.id)
        return {"raw": raw, "error": error}


def scripted(prompt: str) -> str:
    for start, reply in (("List the claims", "claim A"), ("Check the claims", "checked"), ("Score", "5")):
        if prompt.startswith(start):
            return reply
    return "yes"


def test_multi_step_judges_take_one_round_per_step(tmp_path, monkeypatch):
    monkeypatch.setitem(_JUDGES, ClaimsJudge.name, ClaimsJudge())
    monkeypatch.setitem(_JUDGES, ClaimScoreJudge.name, ClaimScoreJudge())
    folder = tmp_path / "run"
    with FakeBatchServer(polls_to_end=1, reply=scripted) as server:
        run = config(tmp_path, monkeypatch, server)
        spec = run.judges["open"]
        run = run.model_copy(update={"judges": {"test-claims": spec, "test-claim-score": spec}})
        outcome = run_eval(run, folder)
    assert outcome.judgments_pending == 0
    assert server.creates == 3  # claims, their check, then the judge that reads them
    found = judgments(folder)
    for sample in OPEN:
        claims = found[("test-claims", sample.id)]
        assert (claims["claims"], claims["raw"], claims["error"]) == ("claim A", "checked", None)
        assert found[("test-claim-score", sample.id)]["raw"] == "5"


def test_a_server_without_batches_is_called_one_by_one(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    notes: list[str] = []
    with FakeBatchServer(batch_api=False) as server:
        run = config(tmp_path, monkeypatch, server)
        run = run.model_copy(update={"judges": {"open": f"openai-compatible:{server.url}#local"}})
        outcome = run_eval(run, tmp_path / "run", on_note=notes.append)
    assert outcome.judgments_pending == 0 and server.creates == 0
    assert len(judgments(tmp_path / "run")) == len(OPEN)
    assert any("no batch API" in note for note in notes)


def test_the_command_line_says_judgments_are_pending(tmp_path, monkeypatch):
    folder = tmp_path / "run"
    with FakeBatchServer(polls_to_end=2) as server:
        config(tmp_path, monkeypatch, server)  # the provider's variables
        arguments = [
            "eval",
            "sample",
            "--model",
            f"replay:{tmp_path / 'answers.jsonl'}",
            "--method",
            "blind",
            "--judge",
            "open=openai:judge-test",
            "--no-judge-batch-wait",
            "--judge-batch-poll",
            "0.01",
            "--out",
            str(folder),
        ]
        first = CliRunner().invoke(main, arguments)
        assert first.exit_code == 75, first.output
        assert f"{len(OPEN)} judgment(s) wait on provider batches" in first.output
        assert "rerun the same command" in first.output and "submitted batch" in first.output
        second = CliRunner().invoke(main, arguments)
    assert second.exit_code == 0, second.output
    assert server.creates == 1 and len(judgments(folder)) == len(OPEN)
