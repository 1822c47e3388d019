from __future__ import annotations

import numpy as np
import pytest

from vqakit.schema import Prediction, Sample, find_objects
from vqakit.scoring import model_reasoning, reasoning_source, use_reasoning_source
from vqakit.systems.minerva_ego.descriptions import describe_objects
from vqakit.systems.minerva_ego.recall import object_recall, recall_fields, singular

TRACE = (
    '1. At 00:02 I open fridge-0a1b2c3d4e5f6071 and take out "red pepper-1f2e3d4c5b6a7980".\n'
    "2. At 00:09 I pick up knife-2c3afc468fb10cb2 and cut (left half of apple-aaaaaaaaaaaaaaaa)."
)


@pytest.mark.parametrize(
    ("plural", "word"),
    [
        ("knives", "knife"),
        ("berries", "berry"),
        ("dishes", "dish"),
        ("cups", "cup"),
        ("glass", "glass"),
        ("boxes", "box"),
        ("tomatoes", "tomato"),
        ("bus", "bus"),
        ("lids", "lid"),
    ],
)
def test_singular(plural, word):
    assert singular(plural) == word


@pytest.mark.parametrize(
    ("reasoning", "objects", "nouns"),
    [
        (  # articles are ignored: "the left half of the apple" is the description
            "I open the fridge, take the red pepper and cut the left half of the apple with a knife.",
            1.0,
            1.0,
        ),
        ("I open the Fridge and cut the left half of apple with knives.", 3 / 4, 3 / 4),
        ("The person uses knife-2c3afc468fb10cb2 on a red_pepper.", 2 / 4, 2 / 4),
        ("Some peppers and apples are cut.", 0.0, 2 / 4),
        ("Nothing relevant.", 0.0, 0.0),
        (None, 0.0, 0.0),
    ],
)
def test_object_and_noun_recall(reasoning, objects, nouns):
    result = object_recall(TRACE, reasoning)
    assert result["object_recall"] == pytest.approx(objects)
    assert result["noun_recall"] == pytest.approx(nouns)
    assert [row["noun"] for row in result["objects"]] == ["fridge", "pepper", "knife", "apple"]


def test_no_reference_objects_means_no_score():
    assert object_recall("1. At 00:03 something happens.", "anything") is None


def test_embedding_rescue_uses_the_threshold():
    """A scripted embedder (test double): 'capsicum' sits next to 'red pepper', nothing else does."""

    def embed(texts):
        vectors = []
        for text in texts:
            if "pepper" in text or "capsicum" in text:
                vectors.append([1.0, 0.0])
            else:
                vectors.append([0.0, 1.0])
        return np.asarray(vectors, dtype=np.float32)

    trace = 'I take "red pepper-1f2e3d4c5b6a7980".'
    assert object_recall(trace, "I grab a capsicum.")["object_recall"] == 0.0
    assert object_recall(trace, "I grab a capsicum.", embed=embed)["object_recall"] == 1.0
    assert object_recall(trace, "I grab a spoon.", embed=embed)["object_recall"] == 0.0


# the forms of the paper's examples: a description written before a bracketed id, numbered ids
PAPER_STYLE = (
    "1. At 00:01 I find a green and white mat (mat-eba912ec072326a3) by the door.\n"
    "2. At 00:48 the green and white mat (mat-eba912ec072326a3) moves.\n"
    "3. At 00:59 the user puts the first knife ('knife-2c3afc468fb10cb2') in the dishwasher, and at "
    "05:50 the second knife ('knife2-067f49caca9d1aff').\n"
    "4. From 02:57 the user grates a lemon (lemon-b00bb617003dacac); at 04:17 a second lemon "
    "(lemon2-56e4b71d5bfca0e3)."
)


def test_descriptions_written_around_ids_are_the_object_level():
    result = object_recall(PAPER_STYLE, "The user grates a lemon and a second lemon, and moves the mat.")
    rows = {row["id"]: row for row in result["objects"]}
    assert [(row["object"], row["noun"]) for row in result["objects"]] == [
        ("green and white mat", "mat"),
        ("first knife", "knife"),
        ("second knife", "knife"),
        ("lemon", "lemon"),
        ("second lemon", "lemon"),
    ]
    # before: object level was the id's name ("mat", "knife2", "lemon2"), so "mat" was found at
    # object level and the numbered ids were never found, at either level
    assert rows["mat-eba912ec072326a3"] == {
        "id": "mat-eba912ec072326a3",
        "object": "green and white mat",
        "noun": "mat",
        "object_found": False,
        "noun_found": True,
    }
    assert rows["lemon2-56e4b71d5bfca0e3"]["object_found"] and rows["lemon2-56e4b71d5bfca0e3"]["noun_found"]
    assert result["object_recall"] == pytest.approx(2 / 5) and result["noun_recall"] == pytest.approx(3 / 5)


def test_a_copied_numbered_id_finds_its_object():
    result = object_recall(PAPER_STYLE, "knife2-067f49caca9d1aff goes into the dishwasher")
    found = {row["id"]: (row["object_found"], row["noun_found"]) for row in result["objects"]}
    assert found["knife2-067f49caca9d1aff"] == (True, True)
    assert found["knife-2c3afc468fb10cb2"] == (False, True)  # the copied id reads as "knife"


@pytest.mark.parametrize(
    ("trace", "description"),
    [
        ("I see a green and white mat (mat-eba912ec072326a3).", "green and white mat"),
        ("I cut the left half of an apple (apple-aaaaaaaaaaaaaaaa).", "left half of an apple"),
        ("I wipe the edge of the table (table-bbbbbbbbbbbbbbbb).", "table"),
        ("Then the user opens fridge (fridge-cccccccccccccccc).", "fridge"),  # a verb is no description
        ("I grab knife (knife-dddddddddddddddd).", "knife"),
        ("I see the knife and fork (fork-eeeeeeeeeeeeeeee).", "fork"),
        ("I take the red pepper-1f2e3d4c5b6a7980 out.", "red pepper"),
        ("I flip the light switch (switch-ffffffffffffffff).", "light switch"),
        ("I grate the user's two lemons (lemon-0000000000000001).", "lemons"),
        ('I take out "red pepper-1f2e3d4c5b6a7980".', "red pepper"),
        ("I cut (left half of apple-aaaaaaaaaaaaaaaa).", "left half of apple"),
        ("I see the vegetable (pepper-1f2e3d4c5b6a7980).", "pepper"),  # no head noun: the id's name
        (
            "I see it (mat-eba912ec072326a3), then a green and white mat (mat-eba912ec072326a3).",
            "green and white mat",
        ),
    ],
)
def test_description_rules(trace, description):
    (ref,) = find_objects(trace)
    assert describe_objects(trace, [ref]) == {ref.id: description}


SAMPLE = Sample(id="s1", question="q", choices=["a", "b"], answer=0, reasoning=PAPER_STYLE)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("reply", {"object_recall": 0.0, "noun_recall": 1 / 5}),
        # "first knife" and "lemon" at object level; "knife" and "lemon" are also the nouns of
        # the numbered ids
        ("thinking", {"object_recall": 2 / 5, "noun_recall": 4 / 5}),
        ("both", {"object_recall": 2 / 5, "noun_recall": 5 / 5}),
    ],
)
def test_recall_reads_the_chosen_reasoning(source, expected):
    prediction = Prediction(
        sample_id="s1",
        method="direct",
        reply="The mat moves. Answer: A",
        reasoning="I think the user grates a lemon, then the first knife goes in.",
    )
    with use_reasoning_source(source):
        assert reasoning_source() == source
        assert recall_fields(SAMPLE, prediction, 0) == pytest.approx(expected)
    assert reasoning_source() == "reply"


def test_an_empty_source_is_not_scored_and_unknown_sources_are_refused():
    prediction = Prediction(sample_id="s1", method="direct", reply="the mat")
    with use_reasoning_source("thinking"):
        assert recall_fields(SAMPLE, prediction, 0) == {}
    assert model_reasoning(prediction, "both") == "the mat"
    with pytest.raises(ValueError, match="reply, thinking, both"), use_reasoning_source("scratchpad"):
        pass
