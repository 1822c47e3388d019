"""The lmms-eval export runs in lmms-eval 0.7.3 itself (a real subprocess, the `peers` extra)
against the loopback OpenAI-compatible server, and reports the accuracy vqakit reports on the
same replies. The server's replies are scripted per question (`fake_server`, a test double at the
HTTP boundary), so both tools get the same reply to each question whatever order they ask in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from fake_server import FakeServer

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.tables import export_benchmark

LIMIT = 8  # lmms-eval takes the first N rows, as `--limit` does in vqakit
FRAMES = "uniform:2"  # a light setting, the same in both tools


FORMS = [  # (reply for a sample, whether it is right)
    (lambda s: f"ok:{'ABCDEF'[s.answer]}", True),  # a bare letter
    (lambda s: f"ok:{'ABCDEF'[(s.answer + 1) % len(s.choices)]}", False),
    (lambda s: f"ok:The answer is ({'ABCDEF'[s.answer]}).", True),  # in a sentence
    (lambda s: f"ok:{s.choices[(s.answer + 2) % len(s.choices)]}", False),  # the option restated
    (lambda s: "ok:I cannot tell from these frames.", False),  # unreadable: an abstention
    (lambda s: f"ok:Answer: {'ABCDEF'[s.answer]}", True),
    (lambda s: f"ok:{'ABCDEF'[s.answer]}. {s.choices[s.answer]}", True),  # letter and text
    (lambda s: f"ok:({'ABCDEF'[(s.answer + 1) % len(s.choices)]})", False),
]


def _replies() -> tuple[dict[str, str], float]:
    """A reply per question among the first LIMIT (open-ended ones get a sentence, unscored
    without a judge in both tools), and the MCQ accuracy they make."""
    replies, right = {}, []
    for sample in load_benchmark("sample").samples[:LIMIT]:
        if sample.choices is None:
            replies[sample.question] = "ok:A person walks by."
            continue
        form, correct = FORMS[len(right) % len(FORMS)]
        replies[sample.question] = form(sample)
        right.append(correct)
    return replies, sum(right) / len(right)


@pytest.mark.slow
def test_lmms_eval_reports_the_accuracy_vqakit_reports(tmp_path: Path):
    import lmms_eval  # noqa: F401  (the lmms-eval test extra; CI installs it, so a missing one fails)

    export_benchmark("sample", "lmms-eval", tmp_path / "task", frames=FRAMES)
    replies, expected = _replies()
    with FakeServer(by_text=replies, default="500") as server:
        ours = run_eval(
            EvalConfig(
                bench="sample", model=f"openai-compatible:{server.url}#fake", limit=LIMIT, frames=FRAMES
            ),
            tmp_path / "run",
        )
        env = {
            **os.environ,
            "OPENAI_API_KEY": "test-key-not-secret",
            "HF_HOME": str(tmp_path / "hf"),
            "HF_DATASETS_CACHE": str(tmp_path / "hf/datasets"),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "PYTHONPATH": os.pathsep.join(
                [str(Path(__file__).resolve().parents[2] / "src"), os.environ.get("PYTHONPATH", "")]
            ),
        }
        command = [
            sys.executable, "-m", "lmms_eval", "eval",
            "--model", "openai", "--model_args", f"model=fake,base_url={server.url}",
            "--tasks", "vqakit_sample", "--include_path", str(tmp_path / "task"),
            "--limit", str(LIMIT), "--output_path", str(tmp_path / "lmms"),
        ]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=420, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    found = list((tmp_path / "lmms").rglob("*_results.json"))
    assert len(found) == 1, done.stdout[-2000:]
    theirs = json.loads(found[0].read_text())["results"]["vqakit_sample"]["vqakit_accuracy,none"]
    assert ours.results["errors"]["n"] == 0
    assert ours.results["mcq"]["accuracy"] == pytest.approx(expected)
    assert theirs == pytest.approx(ours.results["mcq"]["accuracy"])
    asked = [r["body"] for r in server.requests]
    assert len(asked) == 2 * LIMIT  # each question once by each tool, nothing retried
