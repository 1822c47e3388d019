"""The judges every benchmark can use: a yes/no judge of open-ended answers against the
reference, and an extractor that reads MCQ replies the rules abstained on. Both keep the judge's
raw reply."""

from __future__ import annotations

from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring._extract import extract_choice
from vqakit.scoring._judges import Judge, register_judge
from vqakit.scoring._labels import format_options
from vqakit.scoring._verdicts import parse_yes_no, yes_no_reason


async def judge_reply(model: Any, prompt: str, sample_id: str) -> tuple[str | None, str | None]:
    """(reply, error message) of one judge call. No token cap is set here: a judge's model is
    run with its own generation settings (`--judge-arg`), so thinking judges have room."""
    from vqakit.models import Message

    completion = await model.complete([Message.user(prompt)], sample_id=sample_id)
    return completion.text, completion.error.message if completion.error else None


@register_judge
class OpenAnswerJudge(Judge):
    """Is an open-ended answer the same as the reference? (yes/no)"""

    name = "open"
    decides = "correct"
    legacy_option = "judge"
    legacy_kind = "judge"

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        return not sample.is_mcq and not sample.answer_hidden

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        prompt = render_prompt(
            "judge_open",
            question=sample.question,
            reference=str(sample.answer),
            candidate=prediction.reply or "",
        )
        raw, error = await judge_reply(model, prompt, sample.id)
        if error:
            return {"raw": raw, "verdict": None, "reason": None, "error": error}
        return {"raw": raw, "verdict": parse_yes_no(raw), "reason": yes_no_reason(raw), "error": None}

    def verdict(self, sample: Sample, record: dict[str, Any]) -> bool | None:
        return None if record.get("verdict") is None else bool(record["verdict"])


@register_judge
class ChoiceExtractor(Judge):
    """Which option did an MCQ reply choose, when the extraction rules could not tell?"""

    name = "extract"
    decides = "choice"
    legacy_option = "extractor"

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        return sample.is_mcq and prediction.choice is None

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        assert sample.choices is not None
        prompt = render_prompt(
            "extract_choice",
            question=sample.question,
            options=format_options(sample.choices),
            reply=prediction.reply or "",
        )
        raw, error = await judge_reply(model, prompt, sample.id)
        result = None if error else extract_choice(raw, len(sample.choices))
        choice = result.choice if result is not None and result.rule == "bare" else None
        return {"raw": raw, "choice": choice, "error": error}

    def choice(self, sample: Sample, record: dict[str, Any]) -> int | None:
        return None if record.get("choice") is None else int(record["choice"])
