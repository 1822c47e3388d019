"""Open-ended judging and model-based extraction of abstentions, with scripted judge replies
(replay files: a test double at the model boundary, since the test is about what judges say)."""

from __future__ import annotations

import json

import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import LETTERS, parse_yes_no, yes_no_reason


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("yes", True),
        ("No.", False),
        ("**Yes**", True),
        ("Answer: no", False),
        ("Verdict - YES, it matches", True),
        ("maybe", None),
        ("", None),
        ("The answer is yes", None),
    ],
)
def test_parse_yes_no(reply, verdict):
    assert parse_yes_no(reply) is verdict


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            "no - the reference says a knife, the candidate a spoon",
            "the reference says a knife, the candidate a spoon",
        ),
        ("**Yes**: same object, other words.", "same object, other words"),
        ("Yes\nBoth name the red cup.", "Both name the red cup"),
        ("yes", None),
        ("The answer is yes because", None),
        (None, None),
    ],
)
def test_the_open_judge_keeps_its_reason(reply, reason):
    assert yes_no_reason(reply) == reason


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_judge_and_extractor_fill_in_scores(tmp_path):
    bench = load_benchmark("sample")
    mcq = [s for s in bench.samples if s.is_mcq]
    open_ended = [s for s in bench.samples if not s.is_mcq]
    hedged = {s.id for s in mcq[:4]}
    answers = write(
        tmp_path / "answers.jsonl",
        [
            {
                "sample_id": s.id,
                "reply": "I am torn between several options."
                if s.id in hedged
                else f"Answer: {LETTERS[s.answer]}",
            }
            for s in mcq
        ]
        + [{"sample_id": s.id, "reply": f"answer to {s.id}"} for s in open_ended],
    )
    verdicts = ["yes", "No, it names another object.", "unclear"]
    judge = write(
        tmp_path / "judge.jsonl",
        [{"sample_id": s.id, "reply": verdicts[i % 3]} for i, s in enumerate(open_ended)]
        + [
            {"sample_id": s.id, "reply": LETTERS[s.answer] if i % 2 == 0 else "NONE"}
            for i, s in enumerate(mcq[:4])
        ],
    )
    config = EvalConfig(
        bench="sample",
        method="blind",
        model=f"replay:{answers}",
        judge=f"replay:{judge}",
        extractor=f"replay:{judge}",
    )
    outcome = run_eval(config, tmp_path / "run")
    scores = {row["sample_id"]: row for row in map(json.loads, (tmp_path / "run/scores.jsonl").open())}
    judged = [scores[s.id] for s in open_ended]
    # an unreadable verdict is the judge's failure: an error with its kind, retried on resume
    assert [row["status"] for row in judged[:3]] == ["judged", "judged", "error: judge open: invalid_output"]
    assert [row["correct"] for row in judged[:3]] == [True, False, None]
    assert judged[1]["judge_raw"] == "No, it names another object."
    re_read = [scores[s.id] for s in mcq[:4]]
    assert [row["status"] for row in re_read] == ["answered", "abstained", "answered", "abstained"]
    assert re_read[0]["extracted_by"] == "model extractor"
    n_judged = sum(1 for row in judged if row["correct"] is not None)
    assert outcome.results["open_ended"]["n"] == n_judged and outcome.results["mcq"]["n"] == len(mcq)
    assert outcome.results["overall"] is None  # both kinds scored: no pooled number
    lines = (tmp_path / "run/judgments.jsonl").read_text().splitlines()
    assert len(lines) == len(open_ended) + 4
    unreadable = [json.loads(line) for line in lines if json.loads(line)["raw"] == "unclear"]
    assert unreadable and all(r["error"].startswith("invalid_output") for r in unreadable)
    again = run_eval(config, tmp_path / "run")  # resumes: only the unreadable verdicts are asked again
    assert len((tmp_path / "run/judgments.jsonl").read_text().splitlines()) == len(lines) + len(unreadable)
    for results in (again.results, outcome.results):
        results["usage"].pop("wall_s")  # the wall time of each call is its own
    assert again.results == outcome.results
    assert "judge said: No, it names another object." in (tmp_path / "run/samples/page-001.html").read_text()
