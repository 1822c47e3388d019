"""The claim judges piece by piece: what they are shown (facts, the cut dialogue), how replies
are read and checked, records and score fields for answers without claims, the summaries and
the report. Model replies come from replay files (a test double at the model boundary)."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import ValidationError

from vqakit.models import Model
from vqakit.schema import Prediction, Sample
from vqakit.scoring import use_benchmark_root
from vqakit.systems.movierecapsqa.claims import ClaimList, ClaimsJudge, shared_claims
from vqakit.systems.movierecapsqa.claims_report import claim_sections, claims_detail
from vqakit.systems.movierecapsqa.evidence import dialogue, question_facts, segment_facts
from vqakit.systems.movierecapsqa.judges import CoherenceJudge, FactualityJudge, RelevanceJudge
from vqakit.systems.movierecapsqa.summary import (
    aggregate,
    breakdown,
    claim_aggregate,
    official_aggregate,
    score_summary,
)
from vqakit.systems.movierecapsqa.verdicts import spellings, verdicts_for

SRT = (
    "1\n00:01:40,000 --> 00:01:43,000\nMara hid the key\nunder the stone.\n\n"
    "2\n00:05:00,000 --> 00:05:02,000\nLater.\n"
)


def sample(facts: tuple[str, ...] = ("Tom watches.",), **meta) -> Sample:
    """A sample in the shape `vqakit import movierecapsqa` writes."""
    metadata = {
        "category": "NPA",
        "modality": "dialogue",
        "segment_facts": ["Mara hides the key.", "Tom watches."],
        "segment_fact_ids": ["a", "b"],
        "aligned_fact_ids": ["b"],
        "movie_window": [90, 150],
        "movie_subtitles": "movie.srt",
        "video_roles": ["recap_segment"],
        **meta,
    }
    return Sample(
        id="s1", question="Where is the key?", answer="Under a stone.", facts=list(facts), metadata=metadata
    )


def replay(tmp_path, replies: dict[str, str]) -> Model:
    path = tmp_path / "replies.jsonl"
    path.write_text("".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in replies.items()))
    return Model(f"replay:{path}")


def grade(judge, model, sample, reply="Mara hid it.", earlier=None):
    prediction = Prediction(sample_id=sample.id, method="imported", reply=reply)
    return asyncio.run(judge.grade(model, sample, prediction, earlier or {}))


def test_the_segment_facts_and_the_question_facts():
    assert segment_facts(sample()) == ["Mara hides the key.", "Tom watches."]
    assert question_facts(sample()) == ["Tom watches."]
    assert question_facts(sample(facts=())) == ["Tom watches."]  # from the aligned ids
    assert question_facts(sample(facts=(), aligned_fact_ids=["zz"])) == segment_facts(sample())
    assert segment_facts(sample(segment_facts=None)) == ["Tom watches."]


def test_dialogue_is_cut_to_the_movie_segment_and_shifted_to_its_clock(tmp_path):
    (tmp_path / "movie.srt").write_text(SRT)
    assert dialogue(sample()).problem.startswith("the benchmark folder is unknown")
    with use_benchmark_root(tmp_path):
        said = dialogue(sample())
        assert said.lines == ["[00:10] Mara hid the key under the stone."] and said.problem is None
        assert dialogue(sample(movie_window=[200, 210])).lines == []  # nobody speaks
        assert "not aligned to the movie" in dialogue(sample(movie_window=None)).problem
        assert "not found" in dialogue(sample(movie_subtitles="gone.srt")).problem


def test_claim_lists_and_verdicts_are_validated():
    assert ClaimList.model_validate({"atomic_claims": [" A  b. ", "", "C."]}).claims == ["A b.", "C."]
    schema = verdicts_for(spellings(FactualityJudge.labels), 3)
    read = schema.model_validate(
        {
            "claim_evaluations": [
                {"claim_number": 3, "label": "nc"},
                {"claim_number": 1, "label": "Partially supported", "justification": None},
                {"claim_number": 2, "label": "CONTRADICTED"},
            ],
            "factuality_score": "2",
        }
    )
    assert [v.label for v in read.claims] == ["partially_supported", "contradictory", "not_checkable"]
    with pytest.raises(ValidationError) as raised:
        schema.model_validate(
            {
                "claims": [
                    {"claim": 1, "label": "true"},
                    {"claim": 1, "label": "S"},
                    {"claim": 4, "label": "S"},
                ],
                "score": 3,
            }
        )
    problem = str(raised.value)
    assert "claims 2, 3 have no label" in problem and "there is no claim 4" in problem
    assert "labelled more than once" in problem and "'true' is not one of" in problem
    coherence = verdicts_for(spellings(CoherenceJudge.labels), 1)
    assert (
        coherence.model_validate({"claims": [{"claim": 1, "label": "R"}], "score": 4}).claims[0].label
        == "redundant"
    )
    relevance = verdicts_for(spellings(RelevanceJudge.labels), 1)
    assert (
        relevance.model_validate({"claims": [{"claim": 1, "label": "NotRelevant"}], "score": 0})
        .claims[0]
        .label
        == "not_relevant"
    )


def test_empty_answers_and_answers_without_claims_are_recorded_not_scored(tmp_path):
    model = replay(tmp_path, {"s1:claims": '```json\n{"claims": []}\n```'})
    empty = grade(ClaimsJudge(), None, sample(), reply="  ")
    assert empty == {"raw": None, "claims": [], "status": "empty_answer", "error": None}
    none = grade(ClaimsJudge(), model, sample(), reply="I cannot tell.")
    assert none["claims"] == [] and none["status"] == "no_claims" and none["error"] is None
    judge = FactualityJudge()
    record = grade(judge, None, sample(), earlier={"claims": none})
    assert record["score"] is None and record["status"] == "no_claims" and record["error"] is None
    assert judge.fields(sample(), record) == {
        "factuality": None,
        "factuality_from_labels": None,
        "factuality_labels": {},
        "factuality_unscored": "no_claims",
    }
    missing = grade(judge, None, sample())
    assert "assign the claims judge a model" in missing["error"] and missing["score"] is None
    failed = grade(judge, None, sample(), earlier={"claims": {"claims": None, "error": "server down"}})
    assert failed["error"] == "claim extraction failed: server down"
    assert shared_claims({"claims": {"claims": ["A."], "error": None}}) == (["A."], "claims", None)


def test_a_judge_reply_becomes_labels_a_score_and_a_label_score(tmp_path):
    reply = {
        "claims": [
            {"claim": 1, "label": "SUPPORTED", "justification": "fact 1"},
            {"claim": 2, "label": "PS", "justification": "vaguer"},
            {"claim": 3, "label": "NOT_CHECKABLE", "justification": "outside"},
        ],
        "score": 4,
        "explanation": "mostly supported",
    }
    model = replay(tmp_path, {"s1:factuality": "Here you go:\n" + json.dumps(reply)})
    claims = {
        "claims": ["Mara hid the key.", "It was under something.", "She was born in 1990."],
        "status": "claims",
        "error": None,
    }
    (tmp_path / "movie.srt").write_text(SRT)
    with use_benchmark_root(tmp_path):
        record = grade(FactualityJudge(), model, sample(), earlier={"claims": claims})
    assert record["score"] == 4 and record["label_score"] == 3.75  # (1 + 0.5) / 2, not checkable left out
    assert record["claims"][1] == {
        "claim": "It was under something.",
        "label": "partially_supported",
        "justification": "vaguer",
    }
    assert record["facts"] == 2 and record["dialogue_lines"] == 1 and record["dialogue_problem"] is None
    fields = FactualityJudge().fields(sample(), record)
    assert fields["factuality_labels"] == {"supported": 1, "partially_supported": 1, "not_checkable": 1}


def test_summaries_break_scores_down_by_category_and_modality():
    samples = [
        sample().model_copy(update={"id": f"s{i}", "metadata": sample(category=c, modality=m).metadata})
        for i, (c, m) in enumerate(
            [("TH", "scene"), ("CRD", "dialogue-based"), ("CRD", "dialogue-based"), ("TEMP", None)]
        )
    ]
    rows = [
        {
            "sample_id": "s0",
            "factuality": 5,
            "factuality_from_labels": 5.0,
            "factuality_labels": {"supported": 2},
        },
        {
            "sample_id": "s1",
            "factuality": 3,
            "factuality_from_labels": 2.5,
            "factuality_labels": {"unsupported": 1, "supported": 1},
        },
        {
            "sample_id": "s2",
            "factuality": 1,
            "factuality_from_labels": 0.0,
            "factuality_labels": {"contradictory": 1},
        },
        {
            "sample_id": "s3",
            "factuality": None,
            "factuality_from_labels": None,
            "factuality_labels": {},
            "factuality_unscored": "no_claims",
        },
    ]
    summary = score_summary("factuality", samples, rows, list(FactualityJudge.labels))
    assert summary["overall"]["n"] == 3 and summary["overall"]["mean"] == pytest.approx(3.0)
    assert list(summary["by_category"]) == ["CRD", "TH"] and summary["by_category"]["CRD"]["mean"] == 2.0
    assert list(summary["by_modality"]) == ["dialogue-based", "scene"]
    assert summary["unscored"] == {"no_claims": 1} and summary["labels"]["supported"] == 3
    assert summary["from_labels"]["mean"] == pytest.approx(2.5)
    low, high = summary["overall"]["ci95"]
    assert 0 <= low <= 3 <= high <= 5
    assert aggregate({"factuality": 4, "relevance": 5, "coherence": 3}) == 4
    assert aggregate({"factuality": 4, "relevance": None, "coherence": 3}) is None
    # the official evaluation averages whichever scores a question has; ours needs all three
    assert official_aggregate({"factuality": 4, "relevance": None, "coherence": 3}) == 3.5
    assert official_aggregate({"factuality": None, "relevance": None, "coherence": None}) is None
    assert claim_aggregate(samples, [{"sample_id": "s0"}]) == {}
    both = claim_aggregate(
        samples,
        [
            {"sample_id": "s0", "factuality": 4, "relevance": 5, "coherence": 3},
            {"sample_id": "s1", "factuality": 2, "relevance": None, "coherence": 4},
        ],
    )
    assert both["claim_aggregate"]["overall"]["n"] == 1 and both["claim_aggregate"]["overall"]["mean"] == 4
    official = both["claim_aggregate_official"]["overall"]
    assert official["n"] == 2 and official["mean"] == pytest.approx((4 + 3) / 2)
    assert breakdown(samples, rows, lambda row: None)["overall"]["n"] == 0


def test_report_sections_and_sample_details():
    results = {
        "claims": {"answers": 3, "claims_per_answer": 2.0, "no_claims": 1, "empty_answers": 0},
        "factuality": {
            "overall": {"n": 2, "mean": 3.5, "ci95": [2.0, 5.0]},
            "by_category": {"CRD": {"n": 2, "mean": 3.5, "ci95": [2.0, 5.0]}},
            "by_modality": {},
            "labels": {"supported": 3, "unsupported": 1},
            "from_labels": {"n": 2, "mean": 3.0, "ci95": [1.0, 5.0]},
            "unscored": {"error": 1},
        },
    }
    means, labels = claim_sections(results)
    assert means.table.rows[0] == ["all questions", "2", "3.50 [2.00–5.00]", "n/a", "n/a", "n/a", "n/a"]
    assert means.table.rows[1][0] == "category CRD" and "1 judge error(s)" in means.note
    assert ["factuality: supported", "3", "75.0%"] in labels.table.rows
    assert claim_sections({"open_ended": {}}) == []
    prediction = Prediction(sample_id="s1", method="imported", reply="x")
    records = {
        "claims": {"claims": ["A.", "B."], "status": "claims", "error": None},
        "factuality": {
            "score": 3,
            "claims": [
                {"claim": "A.", "label": "supported", "justification": "fact 1"},
                {"claim": "B.", "label": "unsupported", "justification": ""},
            ],
        },
        "coherence": {"score": None, "error": "bad reply", "claims": []},
    }
    detail = claims_detail(sample(), prediction, records)
    assert detail.lines == [
        "scores: factuality 3, coherence error: bad reply",
        "1. A. — factuality: supported",
        "2. B. — factuality: unsupported",
    ]
    assert detail.folded == [("1. factuality: supported", "fact 1")]
    empty = claims_detail(
        sample(), prediction, {"claims": {"claims": [], "status": "empty_answer", "error": None}}
    )
    assert empty.lines == ["claims: none (the answer is empty); not scored"]
    assert claims_detail(sample(), prediction, {}) is None
