"""What a run reports when something goes wrong: failures are outcomes with a kind (never scored),
resume retries them, a missing video fails only its own samples, and the command says so and
exits non-zero. Model faults come from a real loopback server (`fake_server`)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import RunFolder


def spec(server: FakeServer) -> str:
    return f"openai-compatible:{server.url}#fake"


def test_failures_are_counted_apart_never_scored(tmp_path: Path):
    with FakeServer(default="ok:Answer: B") as server:
        server.script.extend(["400", "401"])  # two samples fail for good (not retryable)
        outcome = run_eval(
            EvalConfig(bench="sample", model=spec(server), limit=6, concurrency=1, frames="uniform:2"),
            tmp_path / "run",
        )
    results = outcome.results
    assert results["errors"] == {
        "n": 2,
        "by_kind": {"auth": 1, "bad_request": 1},
        "counted_as_wrong": False,
        "by_judge": {},
        "scored_without_judge": 0,
    }
    assert results["mcq"]["n"] == 4 and results["overall"]["n"] == 4
    scores = RunFolder(tmp_path / "run").scores()
    failed = [row for row in scores.values() if "error" in row]
    assert len(failed) == 2 and all(row["correct"] is None for row in failed)
    strict = run_eval(
        EvalConfig(
            bench="sample",
            model=spec(server),
            limit=6,
            concurrency=1,
            errors_as_wrong=True,
            frames="uniform:2",
            keep_errors=True,
        ),
        tmp_path / "run",
    )
    assert strict.ran == 0 and strict.results["mcq"]["n"] == 6
    assert strict.results["errors"]["counted_as_wrong"] is True


def test_resume_retries_errors_unless_kept(tmp_path: Path):
    with FakeServer(default="400") as server:
        first = run_eval(
            EvalConfig(bench="sample", model=spec(server), limit=3, frames="uniform:2"), tmp_path / "run"
        )
        assert first.results["errors"]["n"] == 3
        kept = run_eval(
            EvalConfig(bench="sample", model=spec(server), limit=3, keep_errors=True, frames="uniform:2"),
            tmp_path / "run",
        )
        assert kept.ran == 0 and kept.finished_before == 3
        server.default = "ok:Answer: A"
        again = run_eval(
            EvalConfig(bench="sample", model=spec(server), limit=3, frames="uniform:2"), tmp_path / "run"
        )
    assert again.finished_before == 0 and again.ran == 3
    assert again.results["errors"]["n"] == 0 and again.results["mcq"]["n"] == 3
    lines = (tmp_path / "run/predictions.jsonl").read_text().splitlines()
    assert len(lines) == 6  # append-only: the error lines stay, superseded by the later ones
    assert all(p.error is None for p in RunFolder(tmp_path / "run").predictions().values())


def test_the_command_says_what_failed_and_exits_non_zero(tmp_path: Path):
    with FakeServer(default="ok:Answer: C") as server:
        server.script.extend(["400"])
        result = CliRunner().invoke(
            main, ["eval", "sample", "--model", spec(server), "--limit", "3", "--out", str(tmp_path / "run")]
        )
    assert result.exit_code == 1
    assert "1 errors (not scored)" in result.output and "MCQ accuracy " in result.output
    assert "on 2 samples" in result.output
    assert (
        "1 sample(s) ended in an error (bad_request 1); rerun the same command to retry them" in result.output
    )


def test_a_missing_video_fails_only_its_samples(tmp_path: Path):
    from vqakit.benchmarks import resolve_benchmark

    bench = tmp_path / "bench"
    shutil.copytree(resolve_benchmark("sample"), bench)
    (bench / "media/thanks.mp4").unlink()
    with FakeServer(default="ok:Answer: A") as server:
        outcome = run_eval(EvalConfig(bench=str(bench), model=spec(server)), tmp_path / "run")
    predictions = RunFolder(tmp_path / "run").predictions()
    failed = {sample_id: p.error.type for sample_id, p in predictions.items() if p.error}
    uses = {
        s["id"] for s in map(json.loads, (bench / "samples.jsonl").open()) if "thanks.mp4" in json.dumps(s)
    }
    assert set(failed) == uses and set(failed.values()) == {"video"}
    assert outcome.results["errors"]["n"] == len(uses) and outcome.results["mcq"]["n"] > 30


def test_usage_totals_and_what_was_sent(tmp_path: Path):
    with FakeServer(default="think:Answer: A") as server:
        outcome = run_eval(EvalConfig(bench="sample", model=spec(server), limit=2), tmp_path / "run")
    usage = outcome.results["usage"]
    assert usage["calls"] == 2 and usage["input_tokens"] == 22 and usage["output_tokens"] == 16
    prediction = next(iter(RunFolder(tmp_path / "run").predictions().values()))
    assert prediction.reasoning == "Let me look at the frames first."
    assert "Options:" in prediction.prompt and prediction.images == [prediction.images[0]]
    assert (tmp_path / "run" / prediction.images[0]).stat().st_size > 1000
