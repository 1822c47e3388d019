"""Per-family diagnostics (the `hop_grounding` group): retrieval success, sufficiency, chosen
statements and chosen letters per question family beside the pooled numbers, their report
sections, the unshuffled pair layout of a chosen statement, and the keyword step's reply."""

from __future__ import annotations

import pytest

from vqakit.schema import Prediction, Sample
from vqakit.scoring import score_sample, summarise
from vqakit.systems.egofact.diagnostics import layout_letter
from vqakit.systems.egofact.rag_keywords import ClipKeywords, clip_query, keywords_prompt
from vqakit.systems.egofact.report import retrieval_detail, retrieval_sections

# shuffled options: the pair of the object in the video (jar) is listed first
PAIRS = [
    {"object": "jar", "passage": "p-jar", "counterfactual": 3, "factual": 0},
    {"object": "cup", "passage": "p-cup", "counterfactual": 5, "factual": 1},
    {"object": "pan", "passage": "p-pan", "counterfactual": 2, "factual": 4},
]


def sample_of(sample_id: str, hop: int, grounding: str) -> Sample:
    """A kitchen question: two-hop with the statements of `PAIRS` (answer: option 0, about the
    jar), or one-hop with objects as options (answer: cup)."""
    stem = "which statement is true about" if hop == 2 else "what is"
    fields: dict = {
        "id": sample_id,
        "question": f"In a video of a kitchen, {stem} the object that the person opens?",
        "gold_clips": ["c1"],
        "metadata": {"hop": hop, "grounding": grounding},
    }
    if hop == 2:
        fields |= {"choices": [f"statement {i}" for i in range(6)], "answer": 0, "gold_passages": ["p-jar"]}
        fields["metadata"]["pairs"] = PAIRS
    else:
        fields |= {"choices": ["jar", "cup", "pan", "tin"], "answer": 1}
    return Sample.model_validate(fields)


def two_hop(sample_id: str, grounding: str) -> Sample:
    return sample_of(sample_id, 2, grounding)


def one_hop(sample_id: str, grounding: str) -> Sample:
    return sample_of(sample_id, 1, grounding)


def rows_for(cases: list[tuple[Sample, int, list[str], list[str]]]) -> list[dict]:
    return [
        score_sample(
            sample,
            Prediction(
                sample_id=sample.id,
                method="rag",
                choice=choice,
                retrieval={"clips": clips, "passages": passages},
            ),
        )
        for sample, choice, clips, passages in cases
    ]


@pytest.fixture(scope="module")
def results() -> dict:
    cases = [
        (one_hop("l1", "local"), 1, ["c1"], []),  # right, clip found
        (one_hop("l2", "local"), 2, ["c2"], []),  # wrong, clip missed
        (one_hop("t1", "temporal"), 1, ["c2"], []),  # right, clip missed
        (two_hop("l3", "local"), 0, ["c1"], ["p-jar"]),  # right
        (two_hop("l4", "local"), 3, ["c1"], ["p-jar"]),  # the counterfactual of the right object
        (two_hop("t2", "temporal"), 1, ["c2"], ["p-cup"]),  # factual about a wrong object
    ]
    samples = [case[0] for case in cases]
    rows = rows_for(cases)
    for row in rows:
        if row["sample_id"] in ("l1", "l3", "l4"):
            row["sufficient"] = row["sample_id"] != "l4"
    return summarise(samples, rows)


def test_pooled_keys_keep_their_shape(results):
    assert results["retrieval"]["clips"]["all"] == {"n": 6, "rate": 0.5}
    assert set(results["retrieval"]["clips"]) == {"all", "correct", "wrong"}
    assert results["statements"]["all"]["n"] == 3 and results["statements"]["all"]["factual"] == 2
    assert results["sufficiency"]["n"] == 3 and results["sufficiency"]["correct"] == {"n": 2, "rate": 1.0}


def test_retrieval_sufficiency_and_statements_per_family(results):
    families = results["by_family"]
    assert set(families) == {"1-hop local", "1-hop temporal", "2-hop local", "2-hop temporal"}
    local = families["1-hop local"]
    assert local["retrieval"]["clips"]["all"] == {"n": 2, "rate": 0.5}
    assert local["retrieval"]["clips"]["correct"] == {"n": 1, "rate": 1.0}
    assert local["retrieval"]["clips"]["wrong"] == {"n": 1, "rate": 0.0}
    assert "passages" not in local["retrieval"] and "statements" not in local
    assert local["sufficiency"] == {
        "n": 1,
        "rate": 1.0,
        "correct": {"n": 1, "rate": 1.0},
        "wrong": {"n": 0, "rate": None},
    }
    two_local = families["2-hop local"]
    assert two_local["retrieval"]["passages"]["all"] == {"n": 2, "rate": 1.0}
    assert two_local["sufficiency"]["rate"] == 0.5 and two_local["sufficiency"]["wrong"] == {
        "n": 1,
        "rate": 0.0,
    }
    assert two_local["statements"]["all"] == {
        "n": 2,
        "factual": 1,
        "counterfactual": 1,
        "factual_share": 0.5,
        "right_object_share": 1.0,
    }
    temporal = families["2-hop temporal"]["statements"]["passage_missed"]
    assert temporal["n"] == 1 and temporal["right_object_share"] == 0.0
    assert "sufficiency" not in families["2-hop temporal"]


def test_letters_by_outcome_pooled_and_per_family(results):
    letters = results["letters_by_outcome"]
    assert letters["correct"] == {"A": 1, "B": 2, "C": 0, "D": 0, "E": 0, "F": 0}
    assert letters["wrong"] == {"A": 0, "B": 1, "C": 1, "D": 1, "E": 0, "F": 0}
    assert sum(letters["all"].values()) == 6
    assert results["by_family"]["1-hop local"]["letters_by_outcome"]["wrong"] == {
        "A": 0,
        "B": 0,
        "C": 1,
        "D": 0,
    }


def test_chosen_statements_in_the_unshuffled_layout(results):
    sample = two_hop("s", "local")
    # the other objects' pairs first (cup: A/B, pan: C/D), the right object's last (jar: E/F)
    assert [layout_letter(sample, choice) for choice in range(6)] == ["F", "B", "C", "E", "D", "A"]
    assert layout_letter(one_hop("s", "local"), 1) is None
    placed = results["statement_letters"]["passage_retrieved"]
    assert placed["correct"] == {"A": 0, "B": 0, "C": 0, "D": 0, "E": 0, "F": 1}
    assert placed["wrong"] == {"A": 0, "B": 0, "C": 0, "D": 0, "E": 1, "F": 0}
    assert results["statement_letters"]["passage_missed"]["wrong"]["B"] == 1
    assert set(results["by_family"]["2-hop temporal"]["statement_letters"]) == {"all", "passage_missed"}


def test_report_sections_show_pooled_then_family_rows(results):
    sections = {section.title: section for section in retrieval_sections(results)}
    assert list(sections) == [
        "Retrieval success",
        "Clip understanding (sufficiency judge)",
        "Two-hop: chosen statements",
        "Two-hop: chosen statement by pair",
        "Chosen letters",
    ]
    retrieval = [row[0] for row in sections["Retrieval success"].table.rows]
    assert retrieval[:2] == ["clips", "passages"] and "1-hop local: clips" in retrieval
    assert "2-hop temporal: passages" in retrieval
    sufficiency = sections["Clip understanding (sufficiency judge)"].table.rows
    assert [row[0] for row in sufficiency] == [
        "sufficient",
        "1-hop local: sufficient",
        "2-hop local: sufficient",
    ]
    by_pair = sections["Two-hop: chosen statement by pair"].table
    assert by_pair.columns == ["samples", "n", "A", "B", "C", "D", "E", "F"]
    correct = ["passage retrieved, answered correctly", "1", *["0.0%"] * 5, "100.0%"]
    assert correct in by_pair.rows
    labels = [row[0] for row in by_pair.rows]
    assert "2-hop local: passage retrieved, answered wrongly" in labels
    assert not any(label.startswith("2-hop temporal") for label in labels)  # its passage was missed
    letters = sections["Chosen letters"].table
    assert letters.rows[1][:3] == ["answered correctly", "3", "33.3%"]
    # without the judge's pooled summary (no judge ran) there is no sufficiency section
    unjudged = {key: value for key, value in results.items() if key != "sufficiency"}
    assert "Clip understanding (sufficiency judge)" not in {s.title for s in retrieval_sections(unjudged)}


def test_keyword_step_reply_prompt_and_retrieval_text():
    reply = ClipKeywords.model_validate({"keywords": [" jar ", "Jar", "", "kitchen.", "person"]})
    assert reply.keywords == ["jar", "kitchen", "person"]
    assert ClipKeywords.model_validate({"keywords": "jar, lid"}).keywords == ["jar", "lid"]
    with pytest.raises(ValueError):
        ClipKeywords.model_validate({"keywords": []})
    one = keywords_prompt(one_hop("s", "local"))
    assert "Options: jar, cup, pan, tin" in one and one.endswith('{"keywords": ["...", "..."]}')
    statements = two_hop("s", "local").model_copy(
        update={"choices": [f"When opening a jar. It is turned {n} times to the left." for n in range(6)]}
    )
    assert "Options:" not in keywords_prompt(statements).split("Question: ")[-1]
    assert clip_query("A video that shows a kitchen.", ["kitchen", "jar", "lid"]) == (
        "A video that shows a kitchen. jar, lid."
    )
    assert clip_query("A video that shows a kitchen.", []) == "A video that shows a kitchen."
    detail = retrieval_detail(
        one_hop("s", "local"),
        Prediction(sample_id="s", method="rag", retrieval={"query": "A video", "keywords": ["jar", "lid"]}),
    )
    assert detail is not None and "keywords: jar, lid" in detail.lines
