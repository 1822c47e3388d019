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
from vqakit.scoring import Judge, format_options, judge_reply, mean_summary, register_judge

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


@register_judge
class RubricJudge(Judge):
    """MiRA: 0-2 on perceptual correctness, temporal grounding, logical reasoning and
    completeness, against the reference reasoning trace."""

    name = "rubric"
    title = "Reasoning rubric (0-2)"
    summary_label = "criterion"
    legacy_option = "rubric_judge"

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        return bool(sample.reasoning)

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        prompt = render_prompt(
            "rubric_mira",
            question=sample.question,
            options=format_options(sample.choices or []),
            answer=sample.answer_text(),
            reference=sample.reasoning or "",
            candidate=prediction.reply or "",
        )
        raw, error = await judge_reply(model, prompt, sample.id)
        return {"raw": raw, "scores": dict.fromkeys(CRITERIA) if error else parse_rubric(raw), "error": error}

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        return {"rubric": record["scores"]}

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        graded = [row["rubric"] for row in rows if "rubric" in row]
        if not graded:
            return None
        return {
            criterion: mean_summary([g[criterion] for g in graded if g.get(criterion) is not None], 0, 2)
            for criterion in graded[0]
        }
