"""Rubric scoring of reasoning (Minerva-Ego's MiRA): a judge model gives 0, 1 or 2 on four
criteria, comparing the model's reasoning with the reference reasoning and answer.

The judge is asked for `[Criterion: score]` lines; parsing tolerates markdown, missing
brackets, `Criterion - 2`, `2/2` and letter case. A criterion the reply does not score is None
(left out of that criterion's mean, never counted as 0).
"""

from __future__ import annotations

import re
from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring._extract import LETTERS

CRITERIA = {
    "perceptual_correctness": r"perceptual\s+correctness|perception",
    "temporal_grounding": r"temporal\s+grounding",
    "logical_reasoning": r"logical\s+reasoning|logic",
    "completeness": r"completeness",
}


def parse_rubric(reply: str | None) -> dict[str, int | None]:
    text = (reply or "").replace("*", "").replace("_", " ")
    scores: dict[str, int | None] = {}
    for key, name in CRITERIA.items():
        match = re.search(
            rf"(?:{name})\s*(?:score)?\s*[:=\-–]\s*\(?([0-2])(?:\s*/\s*2)?\b", text, re.IGNORECASE
        )
        scores[key] = int(match[1]) if match else None
    return scores


async def rubric_judge(judge: Any, sample: Sample, prediction: Prediction) -> dict[str, Any]:
    from vqakit.models import Message

    options = "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(sample.choices or []))
    prompt = render_prompt(
        "rubric_mira",
        question=sample.question,
        options=options,
        answer=sample.answer_text(),
        reference=sample.reasoning or "",
        candidate=prediction.reply or "",
    )
    completion = await judge.complete([Message.user(prompt)], sample_id=sample.id, max_tokens=64)
    scores = parse_rubric(completion.text) if completion.ok else dict.fromkeys(CRITERIA)
    return {
        "sample_id": sample.id,
        "kind": "rubric",
        "judge": str(judge),
        "raw": completion.text,
        "scores": scores,
        "error": completion.error.message if completion.error else None,
    }
