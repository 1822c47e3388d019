"""Model-based second passes: a yes/no judge for open-ended answers, and an extractor for MCQ
replies the rules abstained on. Both keep the judge's raw reply."""

from __future__ import annotations

import re
from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring._extract import LETTERS, extract_choice

_VERDICT = re.compile(r"^\W*(?:answer|verdict|judgement|judgment)?\W*(yes|no)\b", re.IGNORECASE)


def parse_verdict(reply: str | None) -> bool | None:
    """`yes` -> True, `no` -> False from the start of a judge's reply; None when unclear."""
    if not reply:
        return None
    match = _VERDICT.match(reply.strip())
    return None if match is None else match[1].lower() == "yes"


async def judge_open(judge: Any, sample: Sample, prediction: Prediction) -> dict[str, Any]:
    from vqakit.models import Message

    prompt = render_prompt(
        "judge_open", question=sample.question, reference=str(sample.answer), candidate=prediction.reply or ""
    )
    completion = await judge.complete([Message.user(prompt)], sample_id=sample.id, max_tokens=8)
    verdict = parse_verdict(completion.text) if completion.ok else None
    return {
        "sample_id": sample.id,
        "kind": "judge",
        "judge": str(judge),
        "raw": completion.text,
        "verdict": verdict,
        "error": completion.error.message if completion.error else None,
    }


async def extract_with_model(extractor: Any, sample: Sample, prediction: Prediction) -> dict[str, Any]:
    from vqakit.models import Message

    assert sample.choices is not None
    options = "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(sample.choices))
    prompt = render_prompt(
        "extract_choice", question=sample.question, options=options, reply=prediction.reply or ""
    )
    completion = await extractor.complete([Message.user(prompt)], sample_id=sample.id, max_tokens=8)
    result = extract_choice(completion.text, len(sample.choices)) if completion.ok else None
    choice = result.choice if result is not None and result.rule == "bare" else None
    return {
        "sample_id": sample.id,
        "kind": "extract",
        "judge": str(extractor),
        "raw": completion.text,
        "choice": choice,
        "error": completion.error.message if completion.error else None,
    }
