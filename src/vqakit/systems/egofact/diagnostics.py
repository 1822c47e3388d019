"""Retrieval diagnostics (EgoFact): did retrieval find the gold clip and passage, did the clip
description hold the question's event (a judge's Y/N), and which kind of statement was chosen.

Per sample (added to its score row):
    clip_hit / passage_hit   a gold clip / gold passage is among those retrieved
    sufficient               the sufficiency judge found the anchor event in the gold clip's
                             description (`SufficiencyJudge`)
    statement                two-hop: the chosen option is the "factual" or "counterfactual"
                             statement of its object-passage pair (`metadata.pairs`)
    right_object             two-hop: the chosen statement is about the object in the video

Run level (results.json), pooled over all samples, and the same per question family (the
`hop_grounding` group: 1-hop/2-hop x local/temporal) under `by_family`:
    retrieval            success over all / correctly / wrongly answered samples
    sufficiency          the judge's Y rate, likewise split (pooled, it is the judge's own summary)
    statements           factual / counterfactual choices, by whether the passage was retrieved
    letters_by_outcome   counts of the chosen letters over all, correctly and wrongly answered
                         samples (samples that have a family)
    statement_letters    two-hop: the same for the chosen statement placed in the unshuffled
                         layout, where A/C/E are the counterfactual and B/D/F the factual
                         statements of the three pairs and E/F the pair of the object in the video,
                         by whether the passage was retrieved
`compare` rates `clip_hit`, `passage_hit`, `sufficient` and `statement=factual` in both runs.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring import (
    LETTERS,
    Judge,
    judge_reply,
    no_yes_no,
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
register_diagnostic("statement=factual", "chose a factual statement")  # `compare`: statement == "factual"

FAMILY_GROUP = "hop_grounding"


@register_group(FAMILY_GROUP, rank=30)
def family(sample: Sample) -> list[str]:
    """EgoFact's question family: `1-hop local`, `2-hop temporal`, ..."""
    meta = sample.metadata
    return [f"{meta.hop}-hop {meta.grounding}"] if meta.hop and meta.grounding else []


def _pairs(sample: Sample) -> list[dict[str, Any]]:
    extra = sample.metadata.model_extra or {}
    pairs = extra.get("pairs")
    return pairs if isinstance(pairs, list) else []


def chosen_statement(sample: Sample, choice: int | None) -> tuple[dict[str, Any], str] | None:
    """(the object-passage pair, "factual" or "counterfactual") of a chosen two-hop option."""
    if choice is None:
        return None
    for pair in _pairs(sample):
        kind = next((k for k in ("factual", "counterfactual") if pair.get(k) == choice), None)
        if kind is not None:
            return pair, kind
    return None


def layout_letter(sample: Sample, choice: int | None) -> str | None:
    """Where a chosen two-hop option stands in the unshuffled layout: the pairs of the other
    objects first (in their listed order), the pair of the object in the video last, each as
    (counterfactual, factual), so that A/C/E are counterfactual, B/D/F factual, E/F the right object."""
    found = chosen_statement(sample, choice)
    if found is None:
        return None
    pair, kind = found
    pairs = _pairs(sample)
    right = [p for p in pairs if sample.answer in (p.get("factual"), p.get("counterfactual"))]
    ordered = [p for p in pairs if p not in right] + right
    return LETTERS[2 * ordered.index(pair) + (kind == "factual")]


@register_score_fields
def retrieval_fields(sample: Sample, prediction: Prediction, choice: int | None) -> dict[str, Any]:
    """The diagnostics of one prediction that need no model (see the module docstring)."""
    row: dict[str, Any] = {}
    trace = prediction.retrieval or {}
    if trace.get("step_errors"):  # steps that failed while the sample was still answered
        row["step_failures"] = sorted(trace["step_errors"])
    if sample.gold_clips and "clips" in trace:
        row["clip_hit"] = any(clip in trace["clips"] for clip in sample.gold_clips)
    if sample.gold_passages and "passages" in trace:
        row["passage_hit"] = any(passage in trace["passages"] for passage in sample.gold_passages)
    found = chosen_statement(sample, choice)
    if found is not None:
        pair, kind = found
        row["statement"] = kind
        row["right_object"] = sample.answer in (pair.get("factual"), pair.get("counterfactual"))
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


def _outcomes(values: list[tuple[str, bool | None]], letters: int) -> dict[str, dict[str, int]]:
    """Counts of letters over all (letter, correct) values and over the correct and wrong ones,
    every one of the first `letters` letters present."""

    def counts(kept: list[str]) -> dict[str, int]:
        found = Counter(kept)
        return {letter: found[letter] for letter in LETTERS[:letters]}

    return {
        "all": counts([letter for letter, _ in values]),
        "correct": counts([letter for letter, correct in values if correct is True]),
        "wrong": counts([letter for letter, correct in values if correct is False]),
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
        raw, error = await judge_reply(model, prompt, f"{sample.id}:sufficiency", no_yes_no)
        return {"clip": clip, "raw": raw, "verdict": None if error else parse_yes_no(raw), "error": error}

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        return {} if record.get("verdict") is None else {"sufficient": bool(record["verdict"])}

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        return _sufficiency(rows)


def _sufficiency(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    judged = [row for row in rows if row.get("sufficient") is not None]
    return _split(judged, "sufficient") if judged else None


def _retrieval(rows: list[dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, key in (("clips", "clip_hit"), ("passages", "passage_hit")):
        kept = [row for row in rows if key in row]
        if kept:
            split = _split(kept, key)
            found[name] = {
                "all": {"n": split["n"], "rate": split["rate"]},
                "correct": split["correct"],
                "wrong": split["wrong"],
            }
    return found


def _statement_counts(rows: list[dict[str, Any]]) -> dict[str, Any]:
    factual = sum(1 for row in rows if row["statement"] == "factual")
    right = sum(1 for row in rows if row["right_object"])
    return {
        "n": len(rows),
        "factual": factual,
        "counterfactual": len(rows) - factual,
        "factual_share": factual / len(rows) if rows else None,
        "right_object_share": right / len(rows) if rows else None,
    }


def _by_passage(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Two-hop rows: all, and those whose gold passage was / was not retrieved."""
    return {
        "all": rows,
        "passage_retrieved": [row for row in rows if row.get("passage_hit") is True],
        "passage_missed": [row for row in rows if row.get("passage_hit") is False],
    }


ROW_FIELDS = ("clip_hit", "passage_hit", "statement", "sufficient")  # what the diagnostics read of a row


def _families(by_id: dict[str, Sample], row: dict[str, Any]) -> list[str]:
    """The family of a row's sample (none for a sample not kept)."""
    sample = by_id.get(row["sample_id"])
    return [] if sample is None else family(sample)


def _diagnostics(by_id: dict[str, Sample], rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Retrieval, chosen statements and chosen letters of these rows (keys left out when empty);
    letters only of the samples that have a family."""
    found: dict[str, Any] = {}
    retrieval = _retrieval(rows)
    if retrieval:
        found["retrieval"] = retrieval
    chosen = [row for row in rows if "statement" in row and "chosen" in row]
    if chosen:
        found["statements"] = {name: _statement_counts(part) for name, part in _by_passage(chosen).items()}
        placed: dict[str, str] = {}
        for row in chosen:
            sample = by_id.get(row["sample_id"])  # samples without pairs are not kept: no letter
            letter = None if sample is None else layout_letter(sample, LETTERS.index(row["chosen"]))
            if letter is not None:
                placed[row["sample_id"]] = letter
        width = 2 * max((len(_pairs(by_id[sample_id])) for sample_id in placed), default=3)
        found["statement_letters"] = {
            name: _outcomes([(placed[row["sample_id"]], row["correct"]) for row in part], width)
            for name, part in _by_passage([row for row in chosen if row["sample_id"] in placed]).items()
            if part
        }
    answered = [row for row in rows if "chosen" in row and _families(by_id, row)]
    if answered:
        width = max(len(by_id[row["sample_id"]].choices or ()) for row in answered)
        found["letters_by_outcome"] = _outcomes([(row["chosen"], row["correct"]) for row in answered], width)
    return found


@register_metric
def summarise_retrieval(samples: list[Sample], scores: list[dict[str, Any]]) -> dict[str, Any]:
    """Run-level diagnostics (see the module docstring): pooled over all samples, and per family
    under `by_family`. Only the samples and rows these diagnostics read are kept: samples with a
    family or statement pairs, rows of those or with a retrieval, statement or sufficiency field
    (a run of a million questions of another benchmark holds none of them)."""
    from vqakit.schema import sample_keys  # NumPy: when a run is scored, not when systems load

    run = sample_keys(samples)
    by_id = {sample.id: sample for sample in samples if family(sample) or _pairs(sample)}
    scores = [
        row
        for row in scores
        if (row["sample_id"] in by_id or any(key in row for key in ROW_FIELDS))
        and run.position(row["sample_id"]) is not None
    ]
    found = _diagnostics(by_id, scores)
    families: dict[str, list[dict[str, Any]]] = {}
    for row in scores:
        for key in _families(by_id, row):
            families.setdefault(key, []).append(row)
    by_family: dict[str, Any] = {}
    for key, rows in sorted(families.items()):
        entry = _diagnostics(by_id, rows)
        sufficiency = _sufficiency(rows)
        if sufficiency is not None:
            entry["sufficiency"] = sufficiency
        if entry:
            by_family[key] = entry
    if by_family:
        found["by_family"] = by_family
    return found
