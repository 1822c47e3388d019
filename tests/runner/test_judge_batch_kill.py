"""`vqakit eval --judge-batch` killed in the submission window (the provider has made the batch,
the journal has no `submitted` line yet): the rerun finds the batch at the provider by the
intent it was tagged with, polls it, and submits nothing (against the loopback fake of the
batch APIs; the kill is a real SIGKILL while the provider holds its reply)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fake_batch_server import FakeBatchServer

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import LETTERS

SECRET = "sk-test-0123456789abcdefSECRET"
BENCH = load_benchmark("sample")
OPEN = [s for s in BENCH.samples if not s.is_mcq]

RUN = """
import sys
from vqakit.runner import EvalConfig, run_eval
run_eval(EvalConfig.model_validate_json(sys.argv[1]), sys.argv[2])
"""


def journal_text(folder: Path) -> str:
    path = folder / "judge_batches.jsonl"
    return path.read_text() if path.exists() else ""


def blind_run(tmp_path: Path, monkeypatch, server: FakeBatchServer, provider: str) -> EvalConfig:
    answers = tmp_path / "answers.jsonl"
    lines = [
        {"sample_id": s.id, "reply": f"Answer: {LETTERS[s.answer]}" if s.is_mcq else f"answer to {s.id}."}
        for s in BENCH.samples
    ]
    answers.write_text("".join(json.dumps(line) + "\n" for line in lines))
    if provider == "openai":
        monkeypatch.setenv("OPENAI_API_KEY", SECRET)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        spec = "openai:judge-test"
    else:
        pytest.importorskip("anthropic")
        monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.root)
        spec = "anthropic:claude-test"
    return EvalConfig(
        bench="sample",
        method="blind",
        model=f"replay:{answers}",
        judges={"open": spec},
        judge_batch=True,
        judge_batch_poll_s=0.01,
    )


@pytest.mark.parametrize(
    ("provider", "rerun_with_flag"), [("openai", True), ("anthropic", True), ("openai", False)]
)
def test_a_run_killed_before_journaling_its_batch_does_not_submit_it_again(
    tmp_path, monkeypatch, provider, rerun_with_flag
):
    """Rerun as it was, or without --judge-batch: a batch the provider may hold is looked up
    there either way (the judges' pass uses batches while any is outstanding)."""
    folder = tmp_path / "run"
    with FakeBatchServer(polls_to_end=2, reply=lambda prompt: "yes - same", hold_creates=True) as server:
        run = blind_run(tmp_path, monkeypatch, server, provider)
        child = subprocess.Popen([sys.executable, "-c", RUN, run.model_dump_json(), str(folder)])
        try:
            deadline = time.monotonic() + 120
            while server.creates == 0 and child.poll() is None and time.monotonic() < deadline:
                time.sleep(0.02)
            assert server.creates == 1 and child.poll() is None, "the batch was not created in time"
            os.kill(child.pid, signal.SIGKILL)
            child.wait()
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
            server.hold_creates = False
            server.released.set()
        assert '"submitted"' not in journal_text(folder)  # killed before it
        notes: list[str] = []
        rerun = run if rerun_with_flag else run.model_copy(update={"judge_batch": False})
        outcome = run_eval(rerun, folder, on_note=notes.append)
    assert server.creates == 1  # the killed run's batch, and no other
    assert outcome.judgments_pending == 0
    found = [json.loads(line) for line in (folder / "judgments.jsonl").open()]
    assert sorted(line["sample_id"] for line in found) == sorted(s.id for s in OPEN)
    assert all(line["verdict"] is True for line in found)
    journal = [json.loads(line) for line in (folder / "judge_batches.jsonl").open()]
    assert [line["event"] for line in journal] == ["intent", "submitted", "ended"]
    assert journal[1]["found"] is True and journal[1]["batch"] == server.batches()[0]["id"]
    assert any("instead of submitting" in note for note in notes)
