"""Run folders stay where they belong, keep no secrets, survive kills and concurrent starts, and
resume from any working directory; MCQs may have up to 26 options."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.files import write_atomic, write_text_atomic
from vqakit.runner import EvalConfig, RunLockedError, default_run_folder, run_eval
from vqakit.runner._lock import RunLock
from vqakit.video import write_index_clip


def test_a_card_name_cannot_move_the_run_folder():
    for name in ("../../x", "/etc/x", "a/../../b", "..", ""):
        folder = default_run_folder(name, "direct", "openai:gpt-4o")
        assert folder.parent == Path("runs") and ".." not in folder.parts and not folder.is_absolute()


def test_an_echoed_key_never_reaches_the_run_folder(tmp_path: Path, monkeypatch):
    secret = "sk-test-0123456789abcdefSECRET"
    monkeypatch.setenv("VQAKIT_API_KEY", secret)
    with FakeServer(default="echo-key:401") as server:
        run_eval(
            EvalConfig(
                bench="sample", model=f"openai-compatible:{server.url}#m", limit=2, frames="uniform:1"
            ),
            tmp_path / "run",
        )
        assert any(secret in json.dumps(r["headers"]) for r in server.requests)  # it was sent...
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file() and path.suffix in (".jsonl", ".json", ".yaml", ".html"):
            assert secret not in path.read_text(), path  # ...and is written nowhere
    errors = [json.loads(line)["error"]["message"] for line in (tmp_path / "run/predictions.jsonl").open()]
    assert all("[redacted]" in message for message in errors)


def test_rewritten_files_are_replaced_whole(tmp_path: Path):
    target = write_text_atomic(tmp_path / "config.yaml", "bench: sample\n")

    def torn(handle) -> None:
        handle.write(b"bench: sa")
        raise KeyboardInterrupt  # a kill in the middle of writing

    with pytest.raises(KeyboardInterrupt):
        write_atomic(target, torn)
    assert target.read_text() == "bench: sample\n"
    assert [p.name for p in tmp_path.iterdir()] == ["config.yaml"]  # no temporary file left
    assert oct(target.stat().st_mode & 0o777) != "0o600"


def test_a_second_eval_on_the_same_folder_is_refused(tmp_path: Path):
    folder = tmp_path / "run"
    folder.mkdir()
    with RunLock(folder):
        result = CliRunner().invoke(main, ["eval", "sample", "--method", "random", "--out", str(folder)])
        with pytest.raises(RunLockedError, match=f"pid {os.getpid()}"):
            run_eval(EvalConfig(bench="sample", method="random"), folder)
    assert result.exit_code == 1 and "is in use by another vqakit eval" in result.output
    assert not (folder / "predictions.jsonl").exists()
    assert run_eval(EvalConfig(bench="sample", method="random", limit=2), folder).ran == 2  # free again


def _bench(root: Path, choices: int = 12) -> Path:
    write_index_clip(root / "media/clip.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "many", "version": "1", "license": "CC0-1.0", "description": "Many options."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    samples = [
        {
            "id": f"q{i}",
            "videos": [{"path": "media/clip.mp4"}],
            "question": f"Which number is {i}?",
            "choices": [f"number {n}" for n in range(choices)],
            "answer": (choices - 1 - i) % choices,
        }
        for i in range(3)
    ]
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    replies = [{"sample_id": s["id"], "reply": f"Answer: {letters[s['answer']]}"} for s in samples]
    (root / "replies.jsonl").write_text("".join(json.dumps(r) + "\n" for r in replies))
    return root


def test_up_to_26_options_evaluate_and_report(tmp_path: Path):
    bench = _bench(tmp_path / "bench", choices=26)
    outcome = run_eval(
        EvalConfig(bench=str(bench), model=f"replay:{bench / 'replies.jsonl'}", frames="uniform:1"),
        tmp_path / "run",
    )
    assert outcome.results["mcq"] == {**outcome.results["mcq"], "n": 3, "accuracy": 1.0}
    assert outcome.results["letters"]["chosen"] == {"X": 1, "Y": 1, "Z": 1}
    page = (tmp_path / "run/samples/page-001.html").read_text()
    assert "Z. number 25" in page


def test_resuming_from_another_working_directory(tmp_path: Path, monkeypatch):
    bench = _bench(tmp_path / "data" / "bench", choices=4)
    replies = f"replay:{bench / 'replies.jsonl'}"
    monkeypatch.chdir(tmp_path)
    first = run_eval(EvalConfig(bench="data/bench", model=replies, limit=2, frames="uniform:1"), "runs/r")
    saved = yaml.safe_load((tmp_path / "runs/r/config.yaml").read_text())
    assert saved["bench"] == "../../data/bench"  # relative to the run folder
    monkeypatch.chdir(tmp_path / "data")
    again = run_eval(EvalConfig(bench="bench", model=replies, limit=3, frames="uniform:1"), "../runs/r")
    assert first.ran == 2 and again.finished_before == 2 and again.ran == 1
    compared = CliRunner().invoke(main, ["compare", "../runs/r", "../runs/r", "--json"])
    assert compared.exit_code == 0, compared.output


def test_a_benchmark_may_ship_its_own_prompt_inside_its_folder(tmp_path: Path):
    bench = _bench(tmp_path / "bench", choices=4)
    (bench / "prompts").mkdir()
    (bench / "prompts/terse.txt").write_text("Q: {{ question }}\n{{ options }}\nOne letter.{{ context }}\n")
    outcome = run_eval(
        EvalConfig(
            bench=str(bench),
            model=f"replay:{bench / 'replies.jsonl'}",
            frames="uniform:1",
            prompt="prompts/terse.txt",
        ),
        tmp_path / "run",
    )
    lines = (tmp_path / "run/predictions.jsonl").read_text().splitlines()
    prediction = next(p for p in map(json.loads, lines) if p["sample_id"] == "q0")
    assert (
        prediction["prompt"].startswith("Q: Which number is 0?\nA. number 0")
        and outcome.results["mcq"]["n"] == 3
    )
    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    assert "prompts/terse.txt" in manifest["prompt_hashes"]
