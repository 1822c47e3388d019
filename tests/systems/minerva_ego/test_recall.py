from __future__ import annotations

import numpy as np
import pytest

from vqakit.systems.minerva_ego.recall import object_recall, singular

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
        (
            "I open the fridge, take the red pepper and cut the left half of the apple with a knife.",
            3 / 4,
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
