"""Answer-letter balancing: the gold option lands in every slot equally often, so a model that
favours one letter gains nothing; the wrong options are shuffled reproducibly."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from vqakit.scoring import LETTERS


def seeded_random(seed: int, *parts: str) -> random.Random:
    """A random generator that depends only on the seed and the parts (e.g. an item id), not on
    the order in which items are processed."""
    return random.Random(hashlib.sha256("|".join([str(seed), *parts]).encode()).digest())


class OptionPool(NamedTuple):
    """A question's answer and its wrong options, before they are placed."""

    id: str
    answer: str
    wrong: Sequence[str]


class PlacedOptions(NamedTuple):
    options: list[str]
    answer_index: int


def balance_letters(pools: Sequence[OptionPool], seed: int) -> list[PlacedOptions]:
    """The options of each question in order: the gold option goes to slot `position % n_options`
    (position in `pools`), the wrong options fill the other slots in an order seeded by the id."""
    placed = []
    for position, pool in enumerate(pools):
        wrong = list(pool.wrong)
        seeded_random(seed, pool.id).shuffle(wrong)
        slot = position % (len(wrong) + 1)
        placed.append(PlacedOptions([*wrong[:slot], pool.answer, *wrong[slot:]], slot))
    return placed


def letter_spread(answer_indices: Iterable[int], n_options: int) -> dict[str, int]:
    """How often each of the first `n_options` letters is the gold one."""
    counts = dict.fromkeys(LETTERS[:n_options], 0)
    for index in answer_indices:
        counts[LETTERS[index]] += 1
    return counts
