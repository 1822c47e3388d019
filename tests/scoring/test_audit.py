"""Modality-bias audit with scripted text-only models (replay files: test doubles at the model
boundary, since the test is about what those models answer)."""

from __future__ import annotations

import json
import subprocess
import sys

from vqakit.benchmarks import load_benchmark
from vqakit.schema import Sample
from vqakit.scoring import LETTERS, option_biases


def test_option_biases():
    samples = [
        Sample(
            id=f"s{i}",
            question="q",
            videos=[{"path": "v.mp4"}],
            choices=["a", "bb", "a much longer option"],
            answer=2 if i < 3 else 0,
        )
        for i in range(4)
    ]
    biases = option_biases(samples)
    assert biases["gold_letters"] == {"A": 1, "C": 3}
    assert biases["gold_is_longest"] == 0.75 and biases["gold_is_shortest"] == 0.25
    assert abs(biases["chance_of_one_option"] - 1 / 3) < 1e-9


def test_audit_flags_questions_answered_blind(tmp_path):
    bench = load_benchmark("sample")
    mcq = [s for s in bench.samples if s.is_mcq]
    easy = {s.id for s in mcq[:3]}  # both models get these right without the video
    first, second = tmp_path / "m1.jsonl", tmp_path / "m2.jsonl"
    for path, bonus in ((first, mcq[3].id), (second, mcq[4].id)):
        path.write_text(
            "".join(
                json.dumps(
                    {
                        "sample_id": s.id,
                        "reply": LETTERS[s.answer]
                        if s.id in easy or s.id == bonus
                        else LETTERS[(s.answer + 1) % len(s.choices)],
                    }
                )
                + "\n"
                for s in mcq
            )
        )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "audit",
            "sample",
            "--models",
            f"replay:{first},replay:{second}",
            "--out",
            str(tmp_path / "audit"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    report = json.loads((tmp_path / "audit/audit.json").read_text())
    assert {item["sample_id"] for item in report["blind"]["flagged"]} == easy
    assert set(report["blind"]["right_per_model"].values()) == {4}
    assert "3 question(s) answered without the video by at least 2 model(s)" in result.stdout
