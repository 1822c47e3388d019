"""The four filters: each drops and passes, keeps its judgement and reason (the blind filter both
its answer and the match judgement), reports failed steps as errors and reuses the journal."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from vqakit.builders import BuildJournal, ModelSteps
from vqakit.models import CallError, Completion, Text
from vqakit.prompts import register_prompt_folder
from vqakit.systems.instructionbench import filters as filters_module
from vqakit.systems.instructionbench.filters import FILTERS, FilterJudgement, apply_filter, apply_filters
from vqakit.systems.instructionbench.generate import QA
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

register_prompt_folder(Path(filters_module.__file__).parent / "prompts")

QA_ID = "yc1:coarse:q1"
CLIP = VideoInfo(
    video_id="yc1",
    source="youcook2",
    theme="grilled cheese",
    duration=241.6,
    steps=[
        Step(start=90, end=102, text="spread margarine on two slices of white bread"),
        Step(start=114, end=127, text="place a slice of cheese on the bread"),
    ],
)
PAIR = QA(
    qa_id=QA_ID,
    clip_id="yc1",
    question="What is placed on the bread after the margarine is spread?",
    answer="A slice of cheese.",
    reason="past step recall",
    category="past step recall",
    granularity="coarse",
    perspective="third",
)


class ScriptedModel:
    """Test double for a chat model: replies by request id (`step:item`) from a table (a missing
    id, or None, fails the call); every request id and prompt is recorded."""

    def __init__(self, replies: dict[str, object] | Callable[[str], object]) -> None:
        self.replies = replies
        self.calls: list[tuple[str, str]] = []

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        text = "\n".join(p.text for m in messages for p in m.parts if isinstance(p, Text))
        self.calls.append((sample_id, text))
        reply = self.replies(sample_id) if callable(self.replies) else self.replies.get(sample_id)
        if reply is None:
            return Completion(None, "scripted", error=CallError("http", "503 from the server"))
        return Completion(reply if isinstance(reply, str) else json.dumps(reply), "scripted")

    async def aclose(self) -> None:
        pass

    def __str__(self) -> str:
        return "scripted"


def judged(judgement: str, reason: str) -> dict[str, str]:
    return {"Judgement": judgement, "Reason": reason}


def run(name: str, model: ScriptedModel, folder: Path) -> FilterJudgement:
    return asyncio.run(apply_filter(name, ModelSteps(BuildJournal(folder)), model, CLIP, PAIR))


def test_blind_drops_a_question_answered_without_the_video_and_keeps_both_judgements(tmp_path):
    model = ScriptedModel(
        {
            f"filter-blind:{QA_ID}": {
                "answer": "Cheese, as in any grilled cheese.",
                "reason": "common sense",
            },
            f"filter-blind-match:{QA_ID}": judged("Yes", "both say cheese"),
        }
    )
    found = run("blind", model, tmp_path)
    assert found == FilterJudgement(
        name="blind",
        passed=False,
        verdict="matches the reference",
        reason="both say cheese",
        answer="Cheese, as in any grilled cheese.",
        answer_reason="common sense",
    )
    answer_prompt, match_prompt = model.calls[0][1], model.calls[1][1]
    assert "cannot see" in answer_prompt and "white bread" not in answer_prompt  # no video info
    assert PAIR.question in answer_prompt
    assert "A slice of cheese." in match_prompt and "Cheese, as in any grilled cheese." in match_prompt


def test_blind_passes_a_question_the_blind_answer_gets_wrong(tmp_path):
    model = ScriptedModel(
        {
            f"filter-blind:{QA_ID}": {"Answer": "Ham.", "Reason": "a guess"},
            f"filter-blind-match:{QA_ID}": judged("no", "ham is not cheese"),
        }
    )
    found = run("blind", model, tmp_path)
    assert found.passed and found.verdict == "differs from the reference" and found.answer == "Ham."
    assert found.reason == "ham is not cheese" and found.error is None


def test_tricky_answers_with_the_video_info_and_drops_when_it_fails(tmp_path):
    replies = {
        f"filter-tricky:{QA_ID}": {"answer": "Butter.", "reason": "misread"},
        f"filter-tricky-match:{QA_ID}": judged("No", "butter is not cheese"),
    }
    model = ScriptedModel(replies)
    found = run("tricky", model, tmp_path / "a")
    assert not found.passed and found.verdict == "differs from the reference"
    assert found.answer == "Butter." and found.reason == "butter is not cheese"
    assert "90s to 102s: spread margarine" in model.calls[0][1]
    replies[f"filter-tricky-match:{QA_ID}"] = judged("Yes.", "same thing")
    found = run("tricky", ScriptedModel(replies), tmp_path / "b")
    assert found.passed and found.verdict == "matches the reference"


@pytest.mark.parametrize(
    ("name", "bad", "good"),
    [
        ("hallucination", "poorly designed", "well designed"),
        ("unspecific", "unspecific answer", "specific answer"),
    ],
)
def test_judge_filters_drop_on_yes_and_pass_on_no(tmp_path, name, bad, good):
    step = f"filter-{name}:{QA_ID}"
    model = ScriptedModel({step: judged("Yes", "asks how long the spreading took")})
    dropped = run(name, model, tmp_path / "a")
    assert (dropped.passed, dropped.verdict, dropped.reason) == (
        False,
        bad,
        "asks how long the spreading took",
    )
    assert "90s to 102s: spread margarine" in model.calls[0][1] and PAIR.question in model.calls[0][1]
    kept = run(name, ScriptedModel({step: judged("No", "fine")}), tmp_path / "b")
    assert (kept.passed, kept.verdict, kept.reason, kept.error) == (True, good, "fine", None)


def test_the_unspecific_judge_reads_the_reference_answer_and_the_hallucination_judge_does_not(tmp_path):
    model = ScriptedModel(lambda request: judged("No", "fine"))
    run("unspecific", model, tmp_path / "a")
    run("hallucination", model, tmp_path / "b")
    assert PAIR.answer in model.calls[0][1] and PAIR.answer not in model.calls[1][1]


@pytest.mark.parametrize("name", FILTERS)
def test_a_failed_model_call_is_an_error_never_a_pass(tmp_path, name):
    found = run(name, ScriptedModel({}), tmp_path)
    assert not found.passed and found.verdict == "error"
    assert found.error == "model step failed: http: 503 from the server"


def test_a_failed_match_keeps_the_answer_already_given(tmp_path):
    model = ScriptedModel({f"filter-blind:{QA_ID}": {"answer": "Cheese.", "reason": "guess"}})
    found = run("blind", model, tmp_path)
    assert not found.passed and found.error and found.answer == "Cheese."


def test_a_judgement_that_is_neither_yes_nor_no_is_an_error(tmp_path):
    model = ScriptedModel({f"filter-hallucination:{QA_ID}": judged("Maybe", "unsure")})
    found = run("hallucination", model, tmp_path)
    assert not found.passed and found.error.startswith("model step failed: invalid_output")
    assert len(model.calls) == 3  # the request and two repair turns


def test_filters_run_in_the_paper_order_up_to_the_first_drop(tmp_path):
    model = ScriptedModel(
        {
            f"filter-blind:{QA_ID}": {"answer": "Ham.", "reason": "guess"},
            f"filter-blind-match:{QA_ID}": judged("No", "differs"),
            f"filter-hallucination:{QA_ID}": judged("No", "fine"),
            f"filter-tricky:{QA_ID}": {"answer": "Butter.", "reason": "misread"},
            f"filter-tricky-match:{QA_ID}": judged("No", "differs"),
        }
    )
    found = asyncio.run(apply_filters(ModelSteps(BuildJournal(tmp_path)), model, CLIP, PAIR))
    assert FILTERS == ("blind", "hallucination", "tricky", "unspecific")
    assert [(j.name, j.passed) for j in found] == [
        ("blind", True),
        ("hallucination", True),
        ("tricky", False),
    ]
    assert not any(rid.startswith("filter-unspecific") for rid, _ in model.calls)


def test_a_rerun_over_the_same_journal_makes_no_model_calls(tmp_path):
    replies = {
        f"filter-blind:{QA_ID}": {"answer": "Ham.", "reason": "guess"},
        f"filter-blind-match:{QA_ID}": judged("No", "differs"),
        f"filter-hallucination:{QA_ID}": judged("No", "fine"),
        f"filter-tricky:{QA_ID}": {"answer": "Cheese.", "reason": "read it"},
        f"filter-tricky-match:{QA_ID}": judged("Yes", "same"),
        f"filter-unspecific:{QA_ID}": judged("No", "specific"),
    }
    first = ScriptedModel(replies)
    made = asyncio.run(apply_filters(ModelSteps(BuildJournal(tmp_path)), first, CLIP, PAIR))
    again_model, steps = ScriptedModel(replies), ModelSteps(BuildJournal(tmp_path))
    again = asyncio.run(apply_filters(steps, again_model, CLIP, PAIR))
    assert len(first.calls) == 6 and again_model.calls == [] and steps.reused == 6
    assert again == made and all(j.passed for j in again)


def test_an_unknown_filter_is_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown filter"):
        run("vibes", ScriptedModel({}), tmp_path)
