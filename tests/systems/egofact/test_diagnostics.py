"""Retrieval diagnostics from hand-made predictions: hits, statement kinds, rates by correctness."""

from __future__ import annotations

import pytest

from vqakit.schema import Prediction, Sample
from vqakit.scoring import parse_yes_no, score_sample, summarise
from vqakit.systems.egofact.diagnostics import retrieval_fields

PAIRS = [
    {"object": "cup", "passage": "p-cup", "counterfactual": 0, "factual": 1},
    {"object": "pan", "passage": "p-pan", "counterfactual": 2, "factual": 3},
    {"object": "jar", "passage": "p-jar", "counterfactual": 4, "factual": 5},
]


def two_hop(sample_id: str) -> Sample:
    return Sample(
        id=sample_id,
        question="When you use the object the person picks up, which statement is true?",
        choices=[f"statement {i}" for i in range(6)],
        answer=5,
        gold_clips=["c1"],
        gold_passages=["p-jar"],
        metadata={"hop": 2, "grounding": "local", "pairs": PAIRS},
    )


def predicted(sample_id: str, choice: int, clips: list[str], passages: list[str]) -> Prediction:
    return Prediction(
        sample_id=sample_id, method="rag", choice=choice, retrieval={"clips": clips, "passages": passages}
    )


def test_statement_kinds_and_hits():
    sample = two_hop("s")
    assert retrieval_fields(sample, predicted("s", 5, ["c1"], ["p-jar"]), 5) == {
        "clip_hit": True,
        "passage_hit": True,
        "statement": "factual",
        "right_object": True,
    }
    assert retrieval_fields(sample, predicted("s", 4, ["c2"], ["p-cup"]), 4) == {
        "clip_hit": False,
        "passage_hit": False,
        "statement": "counterfactual",
        "right_object": True,
    }
    assert retrieval_fields(sample, predicted("s", 1, ["c1"], []), 1)["right_object"] is False
    direct = Prediction(sample_id="s", method="direct", choice=1)
    assert retrieval_fields(sample, direct, 1) == {"statement": "factual", "right_object": False}


def test_rates_split_by_correctness_and_passage_retrieval():
    cases = [  # (choice, clips, passages)
        (5, ["c1", "c2"], ["p-jar", "p-cup"]),  # right, clip and passage found
        (5, ["c2"], ["p-jar"]),  # right, clip missed
        (4, ["c1"], ["p-jar"]),  # counterfactual of the right object
        (1, ["c3"], ["p-cup"]),  # factual about a wrong object, passage missed
    ]
    samples = [two_hop(f"s{i}") for i in range(len(cases))]
    rows = [
        score_sample(s, predicted(s.id, choice, clips, passages))
        for s, (choice, clips, passages) in zip(samples, cases, strict=True)
    ]
    rows[0]["sufficient"], rows[2]["sufficient"] = True, False
    results = summarise(samples, rows)
    clips = results["retrieval"]["clips"]
    assert clips["all"] == {"n": 4, "rate": 0.5}
    assert clips["correct"] == {"n": 2, "rate": 0.5} and clips["wrong"] == {"n": 2, "rate": 0.5}
    assert results["retrieval"]["passages"]["all"]["rate"] == 0.75
    assert results["sufficiency"]["n"] == 2 and results["sufficiency"]["rate"] == 0.5
    assert results["sufficiency"]["correct"] == {"n": 1, "rate": 1.0}
    statements = results["statements"]
    assert statements["all"] == {
        "n": 4,
        "factual": 3,
        "counterfactual": 1,
        "factual_share": 0.75,
        "right_object_share": 0.75,
    }
    assert statements["passage_retrieved"]["n"] == 3 and statements["passage_retrieved"]["factual"] == 2
    assert statements["passage_missed"]["factual_share"] == 1.0
    assert results["groups"]["hop_grounding"]["2-hop local"]["accuracy"] == pytest.approx(0.5)


def test_yes_no_parsing():
    assert parse_yes_no("Y") is True and parse_yes_no("yes, it does") is True
    assert parse_yes_no(" N.") is False and parse_yes_no("No") is False
    assert parse_yes_no("Maybe") is None and parse_yes_no("") is None and parse_yes_no(None) is None
