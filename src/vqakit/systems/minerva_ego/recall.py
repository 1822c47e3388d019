"""Object recall: how many of the reference trace's objects a model's reasoning mentions.

Reference objects are the ids of the reference reasoning (`name-<16 hex>`, numbered names
such as `knife2-067f49caca9d1aff` included; one per id, see `vqakit.schema.find_objects`).
Two levels, as in Minerva-Ego:

- object level: the object's full description must appear in the model's reasoning as
  consecutive words. The description is what the trace writes around the id (`a green and
  white mat (mat-eba912ec072326a3)` -> `green and white mat`, `the second knife
  ('knife2-...')` -> `second knife`), else the id's name (`left half of apple`); see
  `descriptions.py` for the rules.
- noun level: the head noun must appear: the last word of the id's name without trailing
  digits (`mat`, `knife` for `knife2`, `apple`).

Matching rules, applied to both sides: lower case; `_` and `-` read as spaces; an id the model
copies (`knife-2c3afc468fb10cb2`) counts as its name, and copying an exact id finds that object
at both levels; punctuation and articles (`a`, `an`, `the`) ignored; each word reduced to a
singular form (knives -> knife, berries -> berry, dishes -> dish, cups -> cup, with a short
list of irregular plurals). Optionally, an embedder rescues object-level misses: the object
counts when some clause of the reasoning has cosine similarity >= `threshold` (0.75 by
default) with the description.

What counts as the model's reasoning (its reply, its separate thinking text, or both) is the
run's choice (`reasoning.py`); results.json names it (`object_recall.source`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from vqakit.schema import Prediction, Sample, find_objects
from vqakit.scoring import model_reasoning, reasoning_source, register_metric, register_score_fields
from vqakit.systems.minerva_ego.descriptions import describe_objects, head_noun, singular, words

if TYPE_CHECKING:
    import numpy as np

__all__ = ["object_recall", "recall_fields", "singular", "summarise_recall", "words"]

DEFAULT_THRESHOLD = 0.75


def _contains(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return n > 0 and any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def object_recall(
    reference: str,
    reasoning: str | None,
    *,
    embed: Callable[[list[str]], np.ndarray] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> dict[str, Any] | None:
    """Recall of the reference trace's objects in `reasoning`; None when the trace names none."""
    objects = find_objects(reference)
    if not objects:
        return None
    descriptions = describe_objects(reference, objects)
    text = reasoning or ""
    said = words(text)
    clauses = [c.strip() for c in re.split(r"[.;,\n]", text) if c.strip()]
    rows = []
    for ref in objects:
        description = words(descriptions[ref.id])
        noun = singular(head_noun(ref))
        copied = re.search(rf"-{ref.hex}(?![0-9a-zA-Z])", text) is not None
        whole = copied or _contains(said, description)
        if not whole and embed is not None and clauses:
            vectors = embed([" ".join(description), *clauses])
            whole = bool((vectors[1:] @ vectors[0]).max() >= threshold)
        rows.append(
            {
                "id": ref.id,
                "object": " ".join(description),
                "noun": noun,
                "object_found": whole,
                "noun_found": copied or (bool(noun) and noun in said),
            }
        )
    return {
        "objects": rows,
        "object_recall": sum(r["object_found"] for r in rows) / len(rows),
        "noun_recall": sum(r["noun_found"] for r in rows) / len(rows),
    }


@register_score_fields
def recall_fields(sample: Sample, prediction: Prediction, choice: int | None) -> dict[str, Any]:
    """Object and noun recall of the model's reasoning (the run's choice of reply, thinking
    text or both) against the sample's reference trace (no model). Failed predictions and
    predictions with no text in the chosen source get no fields."""
    if not sample.reasoning or prediction.error is not None:
        return {}
    text = model_reasoning(prediction, reasoning_source())
    recall = object_recall(sample.reasoning, text) if text else None
    if recall is None:
        return {}
    return {"object_recall": recall["object_recall"], "noun_recall": recall["noun_recall"]}


@register_metric
def summarise_recall(samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Mean object and noun recall overall and per category."""
    recalled = [row for row in rows if "object_recall" in row]
    if not recalled:
        return {}
    category = {sample.id: str(sample.metadata.category) for sample in samples}
    by_category: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in recalled:
        by_category[category[row["sample_id"]]].append(row)

    import numpy as np  # imported when recall is summarised, not when the system is loaded

    def means(group: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "n": len(group),
            "object": float(np.mean([r["object_recall"] for r in group])),
            "noun": float(np.mean([r["noun_recall"] for r in group])),
        }

    return {
        "object_recall": {
            **means(recalled),
            "source": reasoning_source(),
            "by_category": {k: means(v) for k, v in sorted(by_category.items())},
        }
    }
