"""Checks of EgoFact's two-hop option structure, `metadata.pairs`: three object-passage pairs,
each naming the option index of its counterfactual and of its factual statement; the correct
option is the factual statement of the pair about the object in the video."""

from __future__ import annotations

from typing import Any

from vqakit.schema import Corpora, Sample, register_sample_check

PAIR_KEYS = {"object": str, "passage": str, "counterfactual": int, "factual": int}


def pair_problems(sample: Sample, passages: dict[str, Any]) -> list[tuple[str, str]]:
    """(field, message) for each problem of a sample's `metadata.pairs`; none when it has none."""
    pairs = (sample.metadata.model_extra or {}).get("pairs")
    if pairs is None:
        return []
    if sample.choices is None:
        return [("metadata.pairs", "pairs describe options, but the sample has no choices")]
    if not isinstance(pairs, list) or not pairs:
        return [("metadata.pairs", "must be a non-empty list of {object, passage, counterfactual, factual}")]
    problems: list[tuple[str, str]] = []
    seen: dict[int, str] = {}
    answer_pairs = []
    for number, pair in enumerate(pairs):
        name = f"metadata.pairs.{number}"
        if not isinstance(pair, dict):
            problems.append((name, "must be an object {object, passage, counterfactual, factual}"))
            continue
        wrong = [
            key
            for key, kind in PAIR_KEYS.items()
            if not isinstance(pair.get(key), kind) or isinstance(pair.get(key), bool)
        ]
        if wrong:
            problems += [(f"{name}.{key}", f"missing or not {PAIR_KEYS[key].__name__}") for key in wrong]
            continue
        if pair["passage"] not in passages:
            problems.append((f"{name}.passage", f"id {pair['passage']!r} is not in corpus/passages.jsonl"))
        for key in ("counterfactual", "factual"):
            index = pair[key]
            if not 0 <= index < len(sample.choices):
                problems.append(
                    (f"{name}.{key}", f"option {index} is out of range for {len(sample.choices)} choices")
                )
            elif index in seen:
                problems.append((f"{name}.{key}", f"option {index} is already the {seen[index]}"))
            else:
                seen[index] = f"{key} statement of pair {number}"
        if pair["factual"] == sample.answer:
            answer_pairs.append(pair)
        if pair["counterfactual"] == sample.answer:
            problems.append((f"{name}.counterfactual", "the answer cannot be a counterfactual statement"))
    if not problems and len(answer_pairs) != 1:
        problems.append(("metadata.pairs", "the answer must be the factual statement of exactly one pair"))
    if answer_pairs and sample.gold_passages and answer_pairs[0]["passage"] not in sample.gold_passages:
        problems.append(
            (
                "metadata.pairs",
                f"the answer's pair uses passage {answer_pairs[0]['passage']!r}, not a gold passage",
            )
        )
    return problems


@register_sample_check
def check_pairs(sample: Sample, corpora: Corpora) -> list[tuple[str, str]]:
    """`validate` runs this on every sample: problems of `metadata.pairs`, when it has any."""
    return pair_problems(sample, corpora.passages)
