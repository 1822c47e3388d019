"""MiRA rubric: tolerant parsing, and a run graded by a scripted judge (replay file, a test
double at the model boundary since the test is about what the judge says)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.prompts import render_prompt
from vqakit.runner import EvalConfig, run_eval
from vqakit.schema import Prediction, Sample
from vqakit.scoring import use_reasoning_source
from vqakit.systems.minerva_ego.rubric import RubricJudge, judge_rationale, parse_rubric

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
        (  # the paper's numbered form
            "(1) Perceptual correctness: 2\n(2) Temporal grounding: 1\n"
            "(3) Logical reasoning: 2\n(4) Completeness: 0",
            FULL,
        ),
        (  # criteria named in the reasoning first: the bracketed lines win, times are not scores
            "Reasoning: Perceptual correctness - 1 object is wrong. Temporal grounding: 0:45 is off. "
            "Logic: fine.\n[Perceptual Correctness: 2]\n[Temporal Grounding: 1]\n"
            "[Logical Reasoning: 2]\n[Completeness: 0]",
            FULL,
        ),
        (  # no brackets: the last score of a criterion counts
            "Perceptual correctness: 1 at first sight, but on reflection\nPerceptual correctness: 2\n"
            "Temporal grounding: 1\nLogical reasoning: 2\nCompleteness: 0.",
            FULL,
        ),
    ],
)
def test_parse_rubric(reply, expected):
    assert parse_rubric(reply) == expected


@pytest.mark.parametrize("source", ["reply", "both"])
def test_rubric_judged_run(tmp_path, source):
    """The run-level reasoning source reaches the judge inside run_eval (blind replies have no
    thinking text, so `both` grades the reply)."""
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
        bench="sample",
        method="blind",
        model=f"replay:{answers}",
        rubric_judge=f"replay:{judge}",
        reasoning_source=source,  # the run's choice (`--reasoning-source`)
    )
    outcome = run_eval(config, tmp_path / "run")
    rubric = outcome.results["rubric"]
    n = len(traced)
    assert rubric["temporal_grounding"] == {
        "n": n,
        "mean": 1.0,
        "ci95": [1.0, 1.0],
        "interval": "bootstrap (effective n)",  # the sample's traced questions share 3 videos
        "clusters": 3,
    }
    firsts = (n + 1) // 2
    assert rubric["completeness"]["n"] == firsts and rubric["completeness"]["mean"] == 0.0
    assert rubric["perceptual_correctness"]["mean"] == pytest.approx(2 * firsts / n)
    assert "Reasoning rubric" in (tmp_path / "run/report.html").read_text()
    records = [json.loads(line) for line in (tmp_path / "run/judgments.jsonl").read_text().splitlines()]
    rubric_records = [r for r in records if r["kind"] == "rubric"]
    assert len(rubric_records) == n
    assert all(r["reasoning_source"] == source for r in rubric_records)
    assert {r["rationale"] for r in rubric_records} == {None, "no idea"}  # the text around the scores


REPLY = (
    "Reasoning: The knife and the bread are right, but the model says the drawer is open.\n"
    "It gives times for both steps and they match.\n\n"
    "Scores:\n[Perceptual Correctness: 1]\n[Temporal Grounding: 2]\n[Logical Reasoning: 2]\n[Completeness: 1]"
)


def test_judge_rationale_is_the_reply_without_its_scores():
    assert judge_rationale(REPLY) == (
        "The knife and the bread are right, but the model says the drawer is open.\n"
        "It gives times for both steps and they match."
    )
    assert judge_rationale("[Perceptual Correctness: 1]\n[Completeness: 1]") is None
    assert judge_rationale("Perceptual correctness: 2 - every object is right") == (
        "Perceptual correctness: 2 - every object is right"
    )


class ScriptedJudge:
    """A test double at the model boundary: replies with REPLY and keeps the prompts it got."""

    def __init__(self):
        self.prompts = []

    async def complete(self, messages, sample_id=None, **params):
        self.prompts.append(messages[0].parts[0].text)
        return SimpleNamespace(text=REPLY, error=None)


@pytest.mark.parametrize(
    ("source", "graded", "not_graded"),
    [("reply", "REPLY-TEXT", "THINKING-TEXT"), ("thinking", "THINKING-TEXT", "REPLY-TEXT")],
)
def test_grade_keeps_the_rationale_and_grades_the_chosen_source(source, graded, not_graded):
    sample = Sample(id="s", question="q?", choices=["a", "b"], answer=0, reasoning="1. At 00:01 a knife.")
    prediction = Prediction(sample_id="s", method="direct", reply="REPLY-TEXT", reasoning="THINKING-TEXT")
    judge, model = RubricJudge(), ScriptedJudge()
    with use_reasoning_source(source):
        assert judge.wants(sample, prediction, {})
        record = asyncio.run(judge.grade(model, sample, prediction, {}))
    assert graded in model.prompts[0] and not_graded not in model.prompts[0]
    assert record["scores"] == {
        "perceptual_correctness": 1,
        "temporal_grounding": 2,
        "logical_reasoning": 2,
        "completeness": 1,
    }
    assert record["rationale"].startswith("The knife and the bread") and record["reasoning_source"] == source
    assert record["raw"] == REPLY and record["error"] is None
    with use_reasoning_source("thinking"):
        assert not judge.wants(sample, prediction.model_copy(update={"reasoning": None}), {})


def test_prompt_has_worked_examples_and_asks_for_reasoning_first():
    prompt = render_prompt(
        "rubric_mira", question="Q", options="(1) a", answer="a", reference="REF", candidate="CAND"
    )
    assert "REF" in prompt and "CAND" in prompt
    assert prompt.count("Example ") >= 3
    for value in "012":
        assert f"[Temporal Grounding: {value}]" in prompt  # each score is shown in an example
    assert prompt.rstrip().endswith("[Completeness: X]") and "Reasoning:" in prompt
