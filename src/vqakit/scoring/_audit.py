"""Modality-bias audit (Minerva-Ego's hygiene step): which questions can be answered without
the video, and do gold answers follow a letter or length pattern?

Nothing is deleted: the audit lists questions for a person to review.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from vqakit.schema import Sample
from vqakit.scoring._extract import LETTERS


def option_biases(samples: list[Sample]) -> dict[str, Any]:
    """Gold-letter counts, and how often the gold option is the longest / shortest (vs chance)."""
    mcq = [s for s in samples if s.choices and not s.answer_hidden]
    longest = shortest = 0
    chance = 0.0
    for sample in mcq:
        lengths = [len(choice) for choice in sample.choices]
        gold = lengths[int(sample.answer)]
        longest += gold == max(lengths) and lengths.count(gold) == 1
        shortest += gold == min(lengths) and lengths.count(gold) == 1
        chance += 1 / len(lengths)
    n = len(mcq)
    return {
        "n": n,
        "gold_letters": dict(sorted(Counter(LETTERS[int(s.answer)] for s in mcq).items())),
        "gold_is_longest": longest / n if n else None,
        "gold_is_shortest": shortest / n if n else None,
        "chance_of_one_option": chance / n if n else None,
    }


def blind_agreement(
    samples: list[Sample], choices_by_model: dict[str, dict[str, int | None]], k: int
) -> dict:
    """Questions that at least `k` text-only models answer correctly from question + options."""
    flagged = []
    for sample in samples:
        if not sample.choices or sample.answer_hidden:
            continue
        right = [
            model for model, choices in choices_by_model.items() if choices.get(sample.id) == sample.answer
        ]
        if len(right) >= k:
            flagged.append({"sample_id": sample.id, "question": sample.question, "models_right": right})
    per_model = {
        model: sum(1 for s in samples if s.choices and not s.answer_hidden and choices.get(s.id) == s.answer)
        for model, choices in choices_by_model.items()
    }
    return {"k": k, "models": list(choices_by_model), "right_per_model": per_model, "flagged": flagged}
