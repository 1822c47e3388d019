"""Object recall: how many of the reference trace's objects a model's reasoning mentions.

Reference objects are the `name-<16 hex>` ids of the reference reasoning (one per id). Two levels:

- object level: the full description (`left half of apple`, `red pepper`) must appear in the
  model's reasoning as consecutive words;
- noun level: the head noun (the description's last word: `apple`, `pepper`) must appear.

Matching rules, applied to both sides: lower case; `_` and `-` read as spaces; an id the model
copies (`knife-2c3afc468fb10cb2`) counts as its name; punctuation ignored; each word reduced
to a singular form (knives -> knife, berries -> berry, dishes -> dish, cups -> cup, with a short
list of irregular plurals). Optionally, an embedder rescues object-level misses: the object
counts when some clause of the reasoning has cosine similarity >= `threshold` (0.75 by
default) with the description.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

from vqakit.schema import Prediction, Sample, find_objects
from vqakit.scoring import register_metric, register_score_fields

DEFAULT_THRESHOLD = 0.75
_HEX_ID = re.compile(r"-[0-9a-f]{16}\b")
_IRREGULAR = {
    "knives": "knife",
    "leaves": "leaf",
    "halves": "half",
    "loaves": "loaf",
    "shelves": "shelf",
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "potatoes": "potato",
    "tomatoes": "tomato",
}
_KEEP = {"glass", "gas", "lens", "bus", "dress", "press", "grass", "class", "this", "is", "was", "has", "its"}


def singular(word: str) -> str:
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _KEEP or len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses", "zes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


def words(text: str) -> list[str]:
    text = _HEX_ID.sub("", text.lower()).replace("_", " ").replace("-", " ")
    return [singular(w) for w in re.findall(r"[a-z0-9]+", text)]


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
    said = words(reasoning or "")
    clauses = [c.strip() for c in re.split(r"[.;,\n]", reasoning or "") if c.strip()]
    rows = []
    for ref in objects:
        description = words(ref.name)
        whole = _contains(said, description)
        if not whole and embed is not None and clauses:
            vectors = embed([ref.name.replace("_", " "), *clauses])
            whole = bool((vectors[1:] @ vectors[0]).max() >= threshold)
        rows.append(
            {
                "id": ref.id,
                "object": " ".join(description),
                "noun": description[-1] if description else "",
                "object_found": whole,
                "noun_found": bool(description) and description[-1] in said,
            }
        )
    return {
        "objects": rows,
        "object_recall": sum(r["object_found"] for r in rows) / len(rows),
        "noun_recall": sum(r["noun_found"] for r in rows) / len(rows),
    }


@register_score_fields
def recall_fields(sample: Sample, prediction: Prediction, choice: int | None) -> dict[str, Any]:
    """Object and noun recall of a reply against the sample's reference trace (no model)."""
    if not (sample.reasoning and prediction.reply):
        return {}
    recall = object_recall(sample.reasoning, prediction.reply)
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

    def means(group: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "n": len(group),
            "object": float(np.mean([r["object_recall"] for r in group])),
            "noun": float(np.mean([r["noun_recall"] for r in group])),
        }

    return {
        "object_recall": {
            **means(recalled),
            "by_category": {k: means(v) for k, v in sorted(by_category.items())},
        }
    }
