"""Retrieval diagnostics (EgoFact): did retrieval find the gold clip and passage, did the clip
description hold the question's event (a judge's Y/N), and which kind of statement was chosen.

Per sample (added to its score row):
    clip_hit / passage_hit   a gold clip / gold passage is among those retrieved
    sufficient               the sufficiency judge found the anchor event in the gold clip's
                             description (`SufficiencyJudge`)
    statement                two-hop: the chosen option is the "factual" or "counterfactual"
                             statement of its object-passage pair (`metadata.pairs`)
    right_object             two-hop: the chosen statement is about the object in the video

Results group samples by family (`hop_grounding`: 1-hop/2-hop x local/temporal).
"""

from __future__ import annotations

from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring import (
    Judge,
    judge_reply,
    parse_yes_no,
    register_diagnostic,
    register_group,
    register_judge,
    register_metric,
    register_score_fields,
)

register_diagnostic("clip_hit", "gold clip retrieved")
register_diagnostic("passage_hit", "gold passage retrieved")
register_diagnostic("sufficient", "sufficient")


@register_group("hop_grounding", rank=30)
def family(sample: Sample) -> list[str]:
    """EgoFact's question family: `1-hop local`, `2-hop temporal`, ..."""
    meta = sample.metadata
    return [f"{meta.hop}-hop {meta.grounding}"] if meta.hop and meta.grounding else []


def _pairs(sample: Sample) -> list[dict[str, Any]]:
    extra = sample.metadata.model_extra or {}
    pairs = extra.get("pairs")
    return pairs if isinstance(pairs, list) else []


@register_score_fields
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


def _rate(values: list[bool]) -> dict[str, Any]:
    return {"n": len(values), "rate": (sum(values) / len(values)) if values else None}


def _split(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    """The rate of a boolean field over all rows and over correctly and wrongly answered ones."""
    return {
        **_rate([row[key] for row in rows]),
        "correct": _rate([row[key] for row in rows if row.get("correct") is True]),
        "wrong": _rate([row[key] for row in rows if row.get("correct") is False]),
    }


@register_judge
class SufficiencyJudge(Judge):
    """Does the gold clip's query-conditioned description contain the question's anchor event?
    The judge sees the question stem only, never the options."""

    name = "sufficiency"
    legacy_option = "sufficiency_judge"

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        return gold_caption(sample, prediction) is not None

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        found = gold_caption(sample, prediction)
        assert found is not None, "the sufficiency judge needs a described gold clip"
        clip, caption = found
        prompt = render_prompt("sufficiency", question=sample.question, caption=caption)
        raw, error = await judge_reply(model, prompt, f"{sample.id}:sufficiency")
        return {"clip": clip, "raw": raw, "verdict": None if error else parse_yes_no(raw), "error": error}

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        return {} if record.get("verdict") is None else {"sufficient": bool(record["verdict"])}

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        judged = [row for row in rows if row.get("sufficient") is not None]
        return _split(judged, "sufficient") if judged else None


@register_metric
def summarise_retrieval(samples: list[Sample], scores: list[dict[str, Any]]) -> dict[str, Any]:
    """Run-level diagnostics: retrieval success over all / correctly / wrongly answered samples,
    and chosen statements split into factual and counterfactual."""
    found: dict[str, Any] = {}
    for name, key in (("clips", "clip_hit"), ("passages", "passage_hit")):
        rows = [row for row in scores if key in row]
        if rows:
            split = _split(rows, key)
            found.setdefault("retrieval", {})[name] = {
                "all": {"n": split["n"], "rate": split["rate"]},
                "correct": split["correct"],
                "wrong": split["wrong"],
            }
    chosen = [row for row in scores if "statement" in row]
    if chosen:

        def statements(rows: list[dict[str, Any]]) -> dict[str, Any]:
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
            "all": statements(chosen),
            "passage_retrieved": statements([row for row in chosen if row.get("passage_hit") is True]),
            "passage_missed": statements([row for row in chosen if row.get("passage_hit") is False]),
        }
    return found
