"""The wording rules of generated pairs: each rule caught, and the borderline words that pass."""

from __future__ import annotations

import pytest

from vqakit.systems.instructionbench.wording import (
    MAX_ANSWER_WORDS,
    RULES,
    Violation,
    absolute_ordinals,
    actor_words,
    check_pair,
    jargon,
    time_mentions,
)

CLEAN_ANSWER = "The tissue is applied with water."


def rules(question: str, answer: str = CLEAN_ANSWER, perspective: str = "third") -> set[str]:
    return {v.rule for v in check_pair(question, answer, perspective)}  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "What is done first with the bread?",
        "What happens last?",
        "Which tool is used lastly?",
        "What is the only ingredient added to the bowl?",
        "What happens at the beginning of the clip?",
        "What is done at the start?",
        "What is the final topping?",
        "What happens at the end?",
        "What is tied to the end of the rope?",  # accepted false positive: "tip" reads as well
        "What is cut second?",
        "What is the third item placed in the pan?",
        "What is the 2nd ingredient?",
        "What is initially placed on the board?",
        "What is finally done with the sandwich?",
    ],
)
def test_absolute_position_words_are_caught_in_questions(text):
    assert absolute_ordinals(text) and rules(text) == {"ordinal"}


@pytest.mark.parametrize(
    "text",
    [
        "What is seen in the first-person view after the pan is heated?",
        "Where is the first aid kit kept?",
        "Which tools are not only sharp but also heavy?",
        "Where does the dough end up after kneading?",
        "What is attached to the other end of the cord?",
        "Which ends of the rope are tied together?",
        "What colour is a second coat of paint?",
        "How much of the flour, a third of it, goes into the bowl?",
        "What is done to the onion before the garlic is added?",
        "What does the cook begin to do after whisking the eggs?",
    ],
)
def test_relative_and_physical_uses_pass(text):
    assert absolute_ordinals(text) == [] and rules(text) == set()


def test_finally_closes_a_sequence_in_an_answer_but_not_in_a_question():
    answer = "The bread is buttered, then the cheese is added and finally the pan is heated."
    assert rules("What is done after the bread is buttered?", answer) == set()
    assert rules("What is finally done after the bread is buttered?", CLEAN_ANSWER) == {"ordinal"}


@pytest.mark.parametrize(
    "text",
    [
        "Which step comes after cutting the onion?",
        "What are the steps between mixing and baking?",
        "Which action involves the knife?",
        "What substep follows the stirring?",
        "According to the video info, what is added?",
        "What does the video_info say about the oven?",
        "Which annotation mentions the oven?",
    ],
)
def test_annotation_jargon_is_caught(text):
    assert jargon(text) and "jargon" in rules(text)


def test_step_ladders_and_stepping_are_not_jargon():
    assert jargon("What is placed on the step ladder?") == []
    assert jargon("Where is the stepladder leaning, and what is stepping on it?") == []


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("What happens at 12:30?", "12:30"),
        ("What is added at 1:02:15?", "1:02:15"),
        ("What is stirred for 45 s?", "45 s"),
        ("What is stirred for 45s?", "45s"),
        ("What is done 3 minutes after the oil is added?", "3 minutes"),
        ("What is done within seconds of the oil being added?", "seconds"),
        ("What is left to rest for a minute?", "a minute"),
        ("What is boiled for half an hour?", "half an hour"),
        ("What is shown at this timestamp?", "timestamp"),
        ("Which time interval shows the mixing?", "time interval"),
        ("What is the duration of the mixing?", "duration"),
    ],
)
def test_times_and_durations_are_caught(text, found):
    assert found in time_mentions(text) and "time" in rules(text)


def test_plain_numbers_and_the_ordinal_second_are_not_times():
    assert time_mentions("How many of the 2 eggs are cracked into the bowl of 3 cups of flour?") == []
    assert time_mentions("What colour is a second coat of paint?") == []


@pytest.mark.parametrize(
    "text",
    [
        "What does he add to the pan?",
        "What does she cut after the onion?",
        "Whose hands hold his knife?",
        "What do they cut after the onion?",
        "What are they cutting after the onion?",
        "What colour are their gloves?",
        "What did you add to the bowl?",
        "What do we pour into the mould?",
        "What did I put in the oven?",
    ],
)
def test_pronouns_for_unknown_actors_are_caught_in_third_person(text):
    assert actor_words(text, "third") and rules(text) == {"actor"}


@pytest.mark.parametrize(
    "text",
    [
        "Where are the noodles placed after they are boiled?",
        "Where are they placed after boiling?",  # "they": the noodles, a passive
        "What is done with the tomatoes after cutting them?",
        "What does the cook add after the onion?",
        "They're golden; what is done to the fritters next?",
    ],
)
def test_pronouns_for_objects_pass_in_third_person(text):
    assert actor_words(text, "third") == []


def test_first_person_speaks_as_i_and_you_but_names_no_one_else():
    assert rules("What did I put in the pan before the eggs?", "You put butter in the pan.", "first") == set()
    assert rules("What did the person put in the pan?", "Butter went into the pan.", "first") == {"actor"}
    assert rules("What did I add?", "The individual added salt.", "first") == {"actor"}
    assert rules("What did she hand me?", "A spoon.", "first") == {"actor"}


def test_answers_must_stay_under_twenty_words():
    nineteen = " ".join(["word"] * (MAX_ANSWER_WORDS - 1))
    twenty = " ".join(["word"] * MAX_ANSWER_WORDS)
    assert rules("What is done after the onion is cut?", nineteen) == set()
    found = check_pair("What is done after the onion is cut?", twenty, "third")
    assert found == [Violation("answer_length", "answer", "20 words")]


def test_a_violation_names_its_rule_field_and_words():
    found = check_pair("Which step is first?", "He cuts it at 12:30.", "third")
    assert {(v.rule, v.field, v.found) for v in found} == {
        ("jargon", "question", "step"),
        ("ordinal", "question", "first"),
        ("actor", "answer", "He"),
        ("time", "answer", "12:30"),
    }
    assert found[0].reason.startswith("question ") and all(v.rule in RULES for v in found)
