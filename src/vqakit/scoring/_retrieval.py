"""Retrieval diagnostics (EgoFact): did retrieval find the gold clip and passage, did the clip
description hold the question's event (a judge's Y/N), and which kind of statement was chosen.

Per sample (added to its score row):
    clip_hit / passage_hit   a gold clip / gold passage is among those retrieved
    sufficient               the judge found the anchor event in the gold clip's description
    statement                two-hop: the chosen option is the "factual" or "counterfactual"
                             statement of its object-passage pair (`metadata.pairs`)
    right_object             two-hop: the chosen statement is about the object in the video
"""

from __future__ import annotations

import re
from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample

_LETTER = re.compile(r"^\W*(?:answer\W*)?(y|n|yes|no)\b", re.IGNORECASE)


def parse_yes_no(reply: str | None) -> bool | None:
    """`Y`/`yes` -> True, `N`/`no` -> False at the start of a reply; None when unclear."""
    if not reply:
        return None
    match = _LETTER.match(reply.strip())
    return None if match is None else match[1].lower().startswith("y")


def _pairs(sample: Sample) -> list[dict[str, Any]]:
    extra = sample.metadata.model_extra or {}
    pairs = extra.get("pairs")
    return pairs if isinstance(pairs, list) else []


def retrieval_fields(sample: Sample, prediction: Prediction, choice: int | None) -> dict[str, Any]:
    """The diagnostics of one prediction that need no model (see the module docstring)."""
    row: dict[str, Any] = {}
    trace = prediction.retrieval or {}
    if sample.gold_clips and "clips" in trace:
        row["clip_hit"] = any(clip in trace["clips"] for clip in sample.gold_clips)
    if sample.gold_passages and "passages" in trace:
        row["passage_hit"] = any(passage in trace["passages"] for passage in sample.gold_passages)
    if choice is not None:
        for pair in _pairs(sample):
            kind = next((k for k in ("factual", "counterfactual") if pair.get(k) == choice), None)
            if kind is not None:
                row["statement"] = kind
                row["right_object"] = sample.answer in (pair.get("factual"), pair.get("counterfactual"))
                break
    return row


def gold_caption(sample: Sample, prediction: Prediction) -> tuple[str, str] | None:
    """(gold clip id, its description) when a gold clip was retrieved and described."""
    captions = (prediction.retrieval or {}).get("captions") or {}
    for clip in sample.gold_clips:
        if captions.get(clip):
            return clip, captions[clip]
    return None


async def judge_sufficiency(judge: Any, sample: Sample, prediction: Prediction) -> dict[str, Any]:
    """Ask `judge` whether the gold clip's query-conditioned description contains the anchor event;
    the judge sees the question stem only, never the options."""
    from vqakit.models import Message

    found = gold_caption(sample, prediction)
    assert found is not None, "judge_sufficiency needs a described gold clip"
    clip, caption = found
    prompt = render_prompt("sufficiency", question=sample.question, caption=caption)
    completion = await judge.complete(
        [Message.user(prompt)], sample_id=f"{sample.id}:sufficiency", max_tokens=8
    )
    return {
        "sample_id": sample.id,
        "kind": "sufficiency",
        "judge": str(judge),
        "clip": clip,
        "raw": completion.text,
        "verdict": parse_yes_no(completion.text) if completion.ok else None,
        "error": completion.error.message if completion.error else None,
    }


def _rate(values: list[bool]) -> dict[str, Any]:
    return {"n": len(values), "rate": (sum(values) / len(values)) if values else None}


def summarise_retrieval(scores: list[dict[str, Any]]) -> dict[str, Any]:
    """Run-level diagnostics: retrieval success over all / correctly / wrongly answered samples,
    the sufficiency rate, and chosen statements split into factual and counterfactual."""
    found: dict[str, Any] = {}
    for name, key in (("clips", "clip_hit"), ("passages", "passage_hit")):
        rows = [row for row in scores if key in row]
        if rows:
            found.setdefault("retrieval", {})[name] = {
                "all": _rate([row[key] for row in rows]),
                "correct": _rate([row[key] for row in rows if row.get("correct") is True]),
                "wrong": _rate([row[key] for row in rows if row.get("correct") is False]),
            }
    judged = [row for row in scores if row.get("sufficient") is not None]
    if judged:
        found["sufficiency"] = {
            **_rate([row["sufficient"] for row in judged]),
            "correct": _rate([row["sufficient"] for row in judged if row.get("correct") is True]),
            "wrong": _rate([row["sufficient"] for row in judged if row.get("correct") is False]),
        }
    chosen = [row for row in scores if "statement" in row]
    if chosen:

        def split(rows: list[dict[str, Any]]) -> dict[str, Any]:
            factual = sum(1 for row in rows if row["statement"] == "factual")
            right = sum(1 for row in rows if row["right_object"])
            return {
                "n": len(rows),
                "factual": factual,
                "counterfactual": len(rows) - factual,
                "factual_share": factual / len(rows) if rows else None,
                "right_object_share": right / len(rows) if rows else None,
            }

        found["statements"] = {
            "all": split(chosen),
            "passage_retrieved": split([row for row in chosen if row.get("passage_hit") is True]),
            "passage_missed": split([row for row in chosen if row.get("passage_hit") is False]),
        }
    return found
