"""`vqakit eval`: run folders, offline baselines, replayed replies, resume and config checks."""

from __future__ import annotations

import itertools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, RunConfigError, run_eval
from vqakit.runs import PredictionLog
from vqakit.schema import Prediction
from vqakit.scoring import LETTERS

RUN_FILES = {"config.yaml", "manifest.json", "predictions.jsonl", "scores.jsonl", "results.json"}


def vqakit(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "vqakit", *args], capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="module")
def sample_bench():
    return load_benchmark("sample")


@pytest.fixture
def replies(tmp_path, sample_bench) -> Path:
    """Recorded replies in assorted styles: the gold letter for MCQ, a sentence for open-ended."""
    styles = ["{L}", "The answer is ({L}).", "Answer: {L}", "**{L}**"]
    path = tmp_path / "replies.jsonl"
    with open(path, "w") as handle:
        for i, sample in enumerate(sample_bench.samples):
            reply = (
                styles[i % 4].format(L=LETTERS[sample.answer]) if sample.is_mcq else f"reply for {sample.id}"
            )
            handle.write(json.dumps({"sample_id": sample.id, "reply": reply, "delay_s": 0.2}) + "\n")
    return path


def test_offline_baselines_write_every_run_file(tmp_path):
    start = time.monotonic()
    result = vqakit("eval", "sample", "--out", str(tmp_path / "runs"), timeout=120)
    elapsed = time.monotonic() - start
    assert result.returncode == 0, result.stderr
    assert "offline baselines" in result.stdout and "--model" in result.stdout
    for method in ("random", "text-similarity"):
        folder = tmp_path / "runs" / f"sample-0.1.0-{method}"
        assert {p.name for p in folder.iterdir()} >= RUN_FILES
        results = json.loads((folder / "results.json").read_text())
        assert results["overall"]["n"] == 36 and results["counts"]["answered"] == 36
    assert elapsed < 60


def test_replay_reproduces_recorded_replies(tmp_path, replies, sample_bench):
    outcome = run_eval(
        EvalConfig(bench="sample", method="direct", model=f"replay:{replies}", frames="uniform:2"),
        tmp_path / "run",
    )
    recorded = {
        json.loads(line)["sample_id"]: json.loads(line)["reply"] for line in replies.read_text().splitlines()
    }
    predictions = [
        Prediction.model_validate_json(line) for line in (tmp_path / "run/predictions.jsonl").open()
    ]
    assert len(predictions) == len(sample_bench.samples)
    for prediction in predictions:
        assert prediction.reply == recorded[prediction.sample_id]
        assert len(prediction.frames_s) == 2
    assert outcome.results["overall"]["accuracy"] == 1.0
    assert outcome.results["letters"]["chosen"] == outcome.results["letters"]["gold"]


def test_changed_config_is_refused_with_a_diff(tmp_path, replies):
    config = EvalConfig(bench="sample", method="blind", model=f"replay:{replies}", limit=3)
    run_eval(config, tmp_path / "run")
    with pytest.raises(
        RunConfigError, match=r"(?s)--new-run.*the method \(--method\): blind in the run, direct now"
    ):
        run_eval(config.model_copy(update={"method": "direct"}), tmp_path / "run")
    resumed = run_eval(config.model_copy(update={"limit": 5, "concurrency": 2}), tmp_path / "run")
    assert (resumed.finished_before, resumed.ran) == (3, 2)  # limit and concurrency may change
    fresh = run_eval(config.model_copy(update={"method": "direct"}), tmp_path / "run", new_run=True)
    assert fresh.folder == tmp_path / "run-2" and fresh.ran == 3


def test_a_cut_last_line_is_dropped_on_restart(tmp_path):
    path = tmp_path / "predictions.jsonl"
    good = Prediction(sample_id="a", method="random", choice=1).model_dump_json()
    path.write_text(good + "\n" + good.replace('"a"', '"b"')[:25])
    log = PredictionLog(path)
    assert list(log.finished) == ["a"]
    log.append(Prediction(sample_id="b", method="random", choice=2))
    log.append(Prediction(sample_id="a", method="random", choice=3))  # already finished: ignored
    log.close()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["sample_id"] for line in lines] == ["a", "b"]


def test_kill_9_twenty_times_loses_and_duplicates_nothing(tmp_path, replies, sample_bench):
    """Each round starts `vqakit eval` and kills it with SIGKILL at a random moment; the 21st
    call finishes. Every sample must end up exactly once, with its recorded reply."""
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "vqakit",
        "eval",
        "sample",
        "--model",
        f"replay:{replies}",
        "--method",
        "blind",
        "--concurrency",
        "2",
        "--out",
        str(out),
    ]
    rng = random.Random(7)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log = out / "predictions.jsonl"
    total = len(sample_bench.samples)

    def finished() -> int:
        return len(log.read_bytes().split(b"\n")) - 1 if log.exists() else 0

    progress = []
    for _ in range(20):
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        # wait until this round has added a random number of predictions (or the run ends),
        # then kill at a random moment after that, possibly in the middle of a write
        target = min(total, finished() + rng.randint(1, 3))
        deadline = time.monotonic() + 60
        while finished() < target and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.15))
        process.send_signal(signal.SIGKILL)
        process.wait()
        progress.append(finished())
    assert sum(1 for a, b in itertools.pairwise(progress) if a < b < total) >= 10, progress
    final = subprocess.run(command, capture_output=True, text=True, env=env)
    assert final.returncode == 0, final.stderr
    ids = [json.loads(line)["sample_id"] for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted(ids) == sorted(s.id for s in sample_bench.samples)
    recorded = {
        json.loads(line)["sample_id"]: json.loads(line)["reply"] for line in replies.read_text().splitlines()
    }
    for line in (out / "predictions.jsonl").read_text().splitlines():
        prediction = json.loads(line)
        assert prediction["reply"] == recorded[prediction["sample_id"]]
    assert json.loads((out / "results.json").read_text())["overall"]["accuracy"] == 1.0


def test_methods_that_need_a_model_say_so():
    result = vqakit("eval", "sample", "--method", "direct", timeout=60)
    assert result.returncode == 2 and "needs --model" in result.stderr


def test_results_group_by_any_metadata_key(tmp_path):
    config = EvalConfig(bench="sample", method="random", group_by=("grounding", "hop"))
    outcome = run_eval(config, tmp_path / "run")
    groups = outcome.results["groups"]
    assert {"category", "skills", "hop_grounding", "video_length", "grounding", "hop"} <= set(groups)
    assert set(groups["grounding"]) == {"local", "temporal"}
    assert sum(bucket["n"] for bucket in groups["video_length"].values()) == 36


def test_numbered_prompt_shows_and_reads_numbers(tmp_path, sample_bench):
    from vqakit.methods import MethodContext, build_prompt

    sample = next(s for s in sample_bench.samples if s.is_mcq)
    protocol = sample_bench.card.protocol.model_copy(update={"prompt": "mcq_numbered"})
    prompt = build_prompt(sample, MethodContext(root=sample_bench.root, protocol=protocol))
    assert f"(1) {sample.choices[0]}" in prompt and "Answer: (N)" in prompt
    replies = tmp_path / "numbered.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": s.id, "reply": f"1. I look.\nAnswer: ({s.answer + 1})"}) + "\n"
            for s in sample_bench.samples
            if s.is_mcq
        )
    )
    config = EvalConfig(
        bench="sample", method="blind", model=f"replay:{replies}", prompt="mcq_numbered", limit=10
    )
    outcome = run_eval(config, tmp_path / "run")
    assert outcome.results["overall"]["accuracy"] == 1.0


def test_a_run_saved_before_new_options_existed_resumes(tmp_path):
    import yaml

    config = EvalConfig(bench="sample", method="random", limit=3)
    run_eval(config, tmp_path / "run")
    saved = yaml.safe_load((tmp_path / "run/config.yaml").read_text())
    for newer in ("judges", "method_args", "fallback"):
        saved.pop(newer)  # as written by an earlier vqakit
    (tmp_path / "run/config.yaml").write_text(yaml.safe_dump(saved, sort_keys=False))
    again = run_eval(config.model_copy(update={"limit": 5}), tmp_path / "run")
    assert again.finished_before == 3 and again.ran == 2
    with pytest.raises(RunConfigError, match="frames"):
        run_eval(config.model_copy(update={"frames": "uniform:3"}), tmp_path / "run")
