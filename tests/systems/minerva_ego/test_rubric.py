"""MiRA rubric: tolerant parsing, and a run graded by a scripted judge (replay file, a test
double at the model boundary since the test is about what the judge says)."""

from __future__ import annotations

import json

import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.systems.minerva_ego.rubric import parse_rubric

FULL = {"perceptual_correctness": 2, "temporal_grounding": 1, "logical_reasoning": 2, "completeness": 0}


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            "[Perceptual Correctness: 2]\n[Temporal Grounding: 1]\n[Logical Reasoning: 2]\n[Completeness: 0]",
            FULL,
        ),
        (
            "**Perceptual correctness**: 2\n**Temporal grounding**: 1\n"
            "**Logical reasoning**: 2\n**Completeness**: 0",
            FULL,
        ),
        (
            "perceptual_correctness - 2/2, temporal grounding = 1/2, logical reasoning: 2, completeness: 0",
            FULL,
        ),
        (
            "[Perceptual Correctness: 2]\n[Completeness: 1]",
            {
                "perceptual_correctness": 2,
                "temporal_grounding": None,
                "logical_reasoning": None,
                "completeness": 1,
            },
        ),
        ("[Perceptual Correctness: 5]", dict.fromkeys(FULL)),
        ("", dict.fromkeys(FULL)),
    ],
)
def test_parse_rubric(reply, expected):
    assert parse_rubric(reply) == expected


def test_rubric_judged_run(tmp_path):
    bench = load_benchmark("sample")
    traced = [s for s in bench.samples if s.reasoning]
    answers = tmp_path / "answers.jsonl"
    answers.write_text(
        "".join(
            json.dumps({"sample_id": s.id, "reply": "1. At 00:04 the circle moves. Answer: A"}) + "\n"
            for s in bench.samples
        )
    )
    grades = [
        "[Perceptual Correctness: 2]\n[Temporal Grounding: 1]\n[Logical Reasoning: 2]\n[Completeness: 0]",
        "[Perceptual Correctness: 0]\n[Temporal Grounding: 1]\n[Logical Reasoning: 1]\nno idea",
    ]
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        "".join(json.dumps({"sample_id": s.id, "reply": grades[i % 2]}) + "\n" for i, s in enumerate(traced))
    )
    config = EvalConfig(
        bench="sample", method="blind", model=f"replay:{answers}", rubric_judge=f"replay:{judge}"
    )
    outcome = run_eval(config, tmp_path / "run")
    rubric = outcome.results["rubric"]
    n = len(traced)
    assert rubric["temporal_grounding"] == {"n": n, "mean": 1.0, "ci95": [1.0, 1.0]}
    firsts = (n + 1) // 2
    assert rubric["completeness"]["n"] == firsts and rubric["completeness"]["mean"] == 0.0
    assert rubric["perceptual_correctness"]["mean"] == pytest.approx(2 * firsts / n)
    assert "Reasoning rubric" in (tmp_path / "run/report.html").read_text()
    kinds = [json.loads(line)["kind"] for line in (tmp_path / "run/judgments.jsonl").read_text().splitlines()]
    assert kinds.count("rubric") == n
