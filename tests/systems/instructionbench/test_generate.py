"""QA generation from a clip's text: pair counts per perspective, wording rejections asked again
as new journaled requests, categories, stable ids, failures and journal reuse."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from vqakit.builders import BuildJournal, ModelSteps
from vqakit.models import CallError, Completion, Text
from vqakit.prompts import register_prompt_folder
from vqakit.systems.instructionbench import generate as generate_module
from vqakit.systems.instructionbench.generate import CATEGORIES, generate_qas, normalise_category
from vqakit.systems.instructionbench.video_info import Step, VideoInfo
from vqakit.systems.instructionbench.video_text import video_text

register_prompt_folder(Path(generate_module.__file__).parent / "prompts")


class ScriptedModel:
    """Test double for a chat model: `reply(request_id, prompt)` gives each reply (None: the call
    fails); every request id and prompt is recorded."""

    def __init__(self, reply: Callable[[str, str], str | None]) -> None:
        self.reply = reply
        self.calls: list[tuple[str, str]] = []

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        text = "\n".join(p.text for m in messages for p in m.parts if isinstance(p, Text))
        self.calls.append((sample_id, text))
        reply = self.reply(sample_id, text)
        if reply is None:
            return Completion(None, "scripted", error=CallError("http", "503 from the server"))
        return Completion(reply, "scripted")

    async def aclose(self) -> None:
        pass

    def __str__(self) -> str:
        return "scripted"


def third_clip() -> VideoInfo:
    return VideoInfo(
        video_id="yc1",
        source="youcook2",
        perspective="third",
        theme="grilled cheese",
        duration=241.6,
        steps=[
            Step(start=90, end=102, text="spread margarine on two slices of white bread"),
            Step(start=114, end=127, text="place a slice of cheese on the bread"),
            Step(start=132, end=138, text="put the slices together and place in a hot pan"),
            Step(start=173, end=174, text="cut the sandwich in half diagonally"),
        ],
    )


def first_clip() -> VideoInfo:
    return VideoInfo(
        video_id="gs1",
        clip_id="gs1@600-900",
        source="goalstep",
        perspective="first",
        theme="Making an egg salad",
        duration=1800,
        start=600,
        end=900,
        steps=[
            Step(
                start=600,
                end=700,
                text="Boil eggs",
                children=[Step(start=610, end=640, text="fill pot with water", level=1)],
            ),
            Step(start=700, end=880, text="Make egg salad"),
        ],
    )


def pair(n: int, category: str = "Step Sequencing", question: str | None = None) -> dict[str, str]:
    return {
        "Question": question or f"What is done right after the bread is buttered, case {n}?",
        "Answer": f"A slice of cheese is placed on the bread ({n}).",
        "Reason": "past step recall",
        "Category": category,
    }


def run(steps: ModelSteps, model, clip: VideoInfo, granularity: str = "coarse", **kwargs):
    return asyncio.run(generate_qas(steps, model, clip, granularity, **kwargs))


def test_third_person_clips_get_three_pairs_and_first_person_five(tmp_path):
    model = ScriptedModel(lambda rid, prompt: json.dumps([pair(n) for n in range(10)]))
    third = run(ModelSteps(BuildJournal(tmp_path / "a")), model, third_clip())
    first = run(ModelSteps(BuildJournal(tmp_path / "b")), model, first_clip(), "fine")
    assert (len(third.qas), len(first.qas)) == (3, 5)
    assert [c[0] for c in model.calls] == ["generate:yc1:coarse", "generate:gs1@600-900:fine"]
    assert "3 question-answer pairs" in model.calls[0][1] and "5 question-answer pairs" in model.calls[1][1]
    assert [r.rule for r in third.rejected] == ["surplus"] * 7 and third.error is None
    assert third.qas[0].model_dump() == {
        "qa_id": "yc1:coarse:q1",
        "clip_id": "yc1",
        "question": "What is done right after the bread is buttered, case 0?",
        "answer": "A slice of cheese is placed on the bread (0).",
        "reason": "past step recall",
        "category": "step sequencing",
        "granularity": "coarse",
        "perspective": "third",
    }
    assert [qa.qa_id for qa in first.qas] == [f"gs1@600-900:fine:q{n}" for n in range(1, 6)]
    assert {qa.perspective for qa in first.qas} == {"first"}


def test_prompts_follow_perspective_and_granularity_and_show_the_clip_text(tmp_path):
    model = ScriptedModel(lambda rid, prompt: json.dumps([pair(n) for n in range(5)]))
    run(ModelSteps(BuildJournal(tmp_path / "a")), model, third_clip(), "coarse")
    run(ModelSteps(BuildJournal(tmp_path / "b")), model, first_clip(), "fine")
    third, first = model.calls[0][1], model.calls[1][1]
    assert "teacher" in third and "glasses" not in third and "in which order" in third
    assert "augmented-reality glasses" in first and "what comes next" not in first
    assert "what those things were like" in first
    assert video_text(third_clip()) in third and video_text(first_clip()) in first
    assert "0s to 100s: Boil eggs" in first and "    - 10s to 40s: fill pot with water" in first


def test_a_pair_breaking_a_rule_is_rejected_and_asked_again_with_what_was_wrong(tmp_path):
    bad = pair(2, question="What does he do first after buttering the bread?")

    def reply(rid: str, prompt: str) -> str:
        if rid == "generate:yc1:coarse":
            return json.dumps([pair(0), pair(1), bad])
        return json.dumps([pair(7, "others: tool use")])

    model = ScriptedModel(reply)
    made = run(ModelSteps(BuildJournal(tmp_path)), model, third_clip())
    assert [c[0] for c in model.calls] == ["generate:yc1:coarse", "generate:yc1:coarse:retry1"]
    assert len(made.qas) == 3 and made.requests == 2 and made.error is None
    assert made.qas[2].question.endswith("case 7?") and made.qas[2].category == "Others(tool use)"
    [rejected] = made.rejected
    assert rejected.pair.question == bad["Question"] and rejected.attempt == 0
    assert rejected.rule == "ordinal" and {b.rule for b in rejected.broken} == {"ordinal", "actor"}
    assert "'first'" in rejected.reason and "'he'" in rejected.reason
    retry = model.calls[1][1]
    assert "Write 1 question-answer pair." in retry and bad["Question"] in retry
    assert 'uses "first", a word for an absolute position' in retry and 'uses "he" for someone' in retry
    assert pair(0)["Question"] in retry.split("do not repeat these")[1]  # kept ones are listed


def test_regeneration_stops_after_the_attempts_and_keeps_every_rejection(tmp_path):
    model = ScriptedModel(lambda rid, prompt: json.dumps([pair(0, question="Which step is shown?")]))
    made = run(ModelSteps(BuildJournal(tmp_path)), model, third_clip(), attempts=3)
    assert made.qas == [] and made.requests == 3 and made.error is None
    assert [c[0] for c in model.calls] == [
        "generate:yc1:coarse",
        "generate:yc1:coarse:retry1",
        "generate:yc1:coarse:retry2",
    ]
    assert [(r.rule, r.attempt) for r in made.rejected] == [("jargon", 0), ("jargon", 1), ("jargon", 2)]


def test_a_repeated_question_is_rejected_as_a_duplicate(tmp_path):
    replies = {"generate:yc1:coarse": [pair(0), pair(0)], "generate:yc1:coarse:retry1": [pair(1), pair(2)]}
    model = ScriptedModel(lambda rid, prompt: json.dumps(replies[rid]))
    made = run(ModelSteps(BuildJournal(tmp_path)), model, third_clip())
    assert [qa.question for qa in made.qas] == [pair(n)["Question"] for n in range(3)]
    assert [r.rule for r in made.rejected] == ["duplicate"]
    assert "repeats a question already written" in model.calls[1][1]


def test_a_failed_request_is_an_error_never_pairs(tmp_path):
    made = run(ModelSteps(BuildJournal(tmp_path)), ScriptedModel(lambda rid, prompt: None), third_clip())
    assert made.qas == [] and made.error == "model step failed: http: 503 from the server"
    unreadable = ScriptedModel(lambda rid, prompt: "Here are some ideas, no JSON.")
    made = run(ModelSteps(BuildJournal(tmp_path)), unreadable, third_clip())
    assert made.qas == [] and made.error.startswith("model step failed: invalid_output")


def test_a_failed_retry_keeps_the_pairs_already_made_and_reports_the_error(tmp_path):
    def reply(rid: str, prompt: str) -> str | None:
        return (
            json.dumps([pair(0), pair(1, question="Which action follows?")]) if "retry" not in rid else None
        )

    made = run(ModelSteps(BuildJournal(tmp_path)), ScriptedModel(reply), third_clip())
    assert len(made.qas) == 1 and made.error.startswith("model step failed")


def test_a_rerun_over_the_same_journal_makes_no_model_calls(tmp_path):
    def reply(rid: str, prompt: str) -> str:
        bad = pair(9, question="What is done at 12:30?")
        return json.dumps([pair(0), bad, pair(1)] if "retry" not in rid else [pair(2)])

    first_model = ScriptedModel(reply)
    made = run(ModelSteps(BuildJournal(tmp_path)), first_model, third_clip())
    again_model = ScriptedModel(reply)
    steps = ModelSteps(BuildJournal(tmp_path))
    again = run(steps, again_model, third_clip())
    assert len(first_model.calls) == 2 and again_model.calls == [] and steps.reused == 2
    assert again == made


def test_replies_wrapped_in_an_object_and_lower_case_keys_are_read(tmp_path):
    wrapped = {
        "pairs": [
            {"question": f"What is cut after the cheese, case {n}?", "answer": "The sandwich."}
            for n in range(3)
        ]
    }
    made = run(
        ModelSteps(BuildJournal(tmp_path)), ScriptedModel(lambda r, p: json.dumps(wrapped)), third_clip()
    )
    assert len(made.qas) == 3 and made.qas[0].category == "Others(unnamed)"


@pytest.mark.parametrize(
    ("written", "category"),
    [
        ("Step Sequencing", "step sequencing"),
        ("step_sequencing", "step sequencing"),
        ("Intermediate Step Recognition", "intermediate steps recognition"),
        ("object existence in step", "object existence in steps"),
        ("FUTURE STEP PREDICTION.", "future step prediction"),
        ("Object Attributes Recognition", "object attribute recognition"),
        ("Others(Tool Use)", "Others(tool use)"),
        ("Other: counting", "Others(counting)"),
        ("Others", "Others(unnamed)"),
        ("Spatial reasoning", "Others(spatial reasoning)"),
    ],
)
def test_categories_are_normalised(written, category):
    assert normalise_category(written) == category


def test_the_eight_categories_of_the_paper():
    assert len(CATEGORIES) == 8 and all(normalise_category(c) == c for c in CATEGORIES)


def test_an_unknown_granularity_is_refused(tmp_path):
    with pytest.raises(ValueError, match="granularity"):
        run(ModelSteps(BuildJournal(tmp_path)), ScriptedModel(lambda r, p: "[]"), third_clip(), "medium")
