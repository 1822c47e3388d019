"""Rubric scoring of reasoning (Minerva-Ego's MiRA): a judge model gives 0, 1 or 2 on four
criteria, comparing the model's reasoning with the reference reasoning and answer.

The prompt (`prompts/rubric_mira.txt`) shows worked examples of the scale and asks the judge
to reason briefly first, then end with one `[Criterion: score]` line per criterion. The
judgment record keeps that reasoning (`rationale`: the reply without its score lines) next to
the scores, the whole reply (`raw`) and which text of the prediction was graded
(`reasoning_source`: reply, thinking or both, the run's choice; see `vqakit.scoring`).

Scores are parsed from the reply only: a `[Criterion: score]` line wins; without one the
tolerant form is read (markdown, missing brackets, `(1) Criterion: 2`, `Criterion - 2`,
`Criterion = 2/2`, letter case), and where a criterion is scored more than once the last one
counts (the scores come after the reasoning). A criterion the reply does not score is None
(left out of that criterion's mean, never counted as 0).
"""

from __future__ import annotations

import re
from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring import (
    Judge,
    format_options,
    judge_reply,
    mean_summary,
    model_reasoning,
    reasoning_source,
    register_judge,
    video_clusters,
)

CRITERIA = {
    "perceptual_correctness": r"perceptual\s+correctness|perception",
    "temporal_grounding": r"temporal\s+grounding",
    "logical_reasoning": r"logical\s+reasoning|logic",
    "completeness": r"completeness",
}
_ANY = "|".join(CRITERIA.values())
# a score: 0-2, optionally out of 2, not the start of a time or a longer number (`0:45`, `1.5`)
_VALUE = r"[:=\-–]\s*(?:score\s*)?\(?([0-2])(?:\s*/\s*2)?\)?(?![\d:.,]\d|\d)"
_SCORE_LINE = re.compile(
    rf"[\s>•\-]*(?:\(?\d\)?[.)]?\s*)?\[?\s*(?:{_ANY})\s*(?:score)?\s*{_VALUE}\s*\]?[.,;]?\s*",
    re.IGNORECASE,
)
_LABEL = re.compile(r"^\s*(?:reasoning|rationale|justification)\s*:\s*", re.IGNORECASE)
_HEADING = re.compile(r"[\s#]*(?:final\s+)?(?:scores?|grades?|output)\s*:?\s*", re.IGNORECASE)


def _plain(text: str) -> str:
    return text.replace("*", "").replace("_", " ")


def parse_rubric(reply: str | None) -> dict[str, int | None]:
    """The four scores of a judge reply (None where a criterion is not scored)."""
    text = _plain(reply or "")
    scores: dict[str, int | None] = {}
    for key, name in CRITERIA.items():
        bracketed = re.findall(
            rf"\[\s*(?:\(?\d\)?[.)]?\s*)?(?:{name})\s*(?:score)?\s*{_VALUE}\s*\]", text, re.IGNORECASE
        )
        loose = bracketed or re.findall(rf"(?:{name})\s*(?:score)?\s*{_VALUE}", text, re.IGNORECASE)
        scores[key] = int(loose[-1]) if loose else None
    return scores


def _unscored(reply: str) -> str | None:
    """Why a rubric reply cannot be read: it scores none of the four criteria."""
    if any(score is not None for score in parse_rubric(reply).values()):
        return None
    return "the reply scores none of the rubric's criteria"


def judge_rationale(reply: str | None) -> str | None:
    """The judge's reasoning: its reply without the score lines, a `Scores:` heading or a
    leading `Reasoning:` label (None when nothing else is left)."""
    kept = [
        line
        for line in (reply or "").splitlines()
        if not _SCORE_LINE.fullmatch(_plain(line)) and not _HEADING.fullmatch(_plain(line))
    ]
    text = _LABEL.sub("", "\n".join(kept).strip(), count=1)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text or None


@register_judge
class RubricJudge(Judge):
    """MiRA: 0-2 on perceptual correctness, temporal grounding, logical reasoning and
    completeness, against the reference reasoning trace."""

    name = "rubric"
    title = "Reasoning rubric (0-2)"
    summary_label = "criterion"
    scale = (0.0, 2.0)
    grades = True
    legacy_option = "rubric_judge"

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        """Samples with a reference trace whose prediction has text in the chosen source."""
        return bool(sample.reasoning) and bool(model_reasoning(prediction, reasoning_source()))

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        source = reasoning_source()
        prompt = render_prompt(
            "rubric_mira",
            question=sample.question,
            options=format_options(sample.choices or []),
            answer=sample.answer_text(),
            reference=sample.reasoning or "",
            candidate=model_reasoning(prediction, source),
        )
        raw, error = await judge_reply(model, prompt, sample.id, _unscored)
        return {
            "raw": raw,
            "scores": dict.fromkeys(CRITERIA) if error else parse_rubric(raw),
            "rationale": None if error else judge_rationale(raw),
            "reasoning_source": source,
            "error": error,
        }

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        return {"rubric": record["scores"]}

    def headline(self, summary: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        return [
            (f"rubric.{name}", f"rubric {name.replace('_', ' ')}", mean) for name, mean in summary.items()
        ]

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        graded = [row for row in rows if "rubric" in row]
        if not graded:
            return None
        clusters = video_clusters(samples)  # a video's questions are not independent

        def criterion_summary(criterion: str) -> dict[str, Any]:
            scored = [row for row in graded if row["rubric"].get(criterion) is not None]
            values = [row["rubric"][criterion] for row in scored]
            return mean_summary(
                values, 0, 2, [clusters.get(row["sample_id"], row["sample_id"]) for row in scored]
            )

        return {criterion: criterion_summary(criterion) for criterion in graded[0]["rubric"]}
