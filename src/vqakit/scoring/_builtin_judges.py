"""The judges every benchmark can use: a yes/no judge of open-ended answers against the
reference, and an extractor that reads MCQ replies the rules abstained on. Both keep the judge's
raw reply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring._judges import Judge, register_judge
from vqakit.scoring._labels import format_options
from vqakit.scoring._verdicts import parse_yes_no, yes_no_reason


async def judge_reply(
    model: Any, prompt: str, sample_id: str, problem: Callable[[str], str | None] | None = None
) -> tuple[str | None, str | None]:
    """(reply, error message) of one judge call. No token cap is set here: a judge's model is
    run with its own generation settings (`--judge-arg`), so thinking judges have room.

    `problem(reply)` says why a reply cannot be read (no verdict, no score), None when it can:
    such a reply is kept as `raw` with an `invalid_output` error, so the judgment is retried on
    the next run, and it is never cached or served from the cache."""
    from vqakit.models import Message

    def check(completion: Any) -> str | None:
        return None if problem is None else problem(completion.text or "")

    completion = await model.complete([Message.user(prompt)], sample_id=sample_id, check=check)
    if completion.error is not None:
        return completion.text, completion.error.message
    why = check(completion)
    return completion.text, None if why is None else f"invalid_output: {why}"


def no_yes_no(reply: str) -> str | None:
    """Why a judge's yes/no reply cannot be read (None when it starts with yes or no)."""
    return None if parse_yes_no(reply) is not None else "the reply does not start with yes or no"


def _no_letter(choices: int) -> Callable[[str], str | None]:
    from vqakit.scoring._extract import extract_choice  # its patterns: compiled when a reply is read

    def problem(reply: str) -> str | None:
        if reply.strip().upper().startswith("NONE"):
            return None
        read = extract_choice(reply, choices)
        return (
            None
            if read.choice is not None and read.rule == "bare"
            else "the reply is neither a letter nor NONE"
        )

    return problem


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
        raw, error = await judge_reply(model, prompt, sample.id, no_yes_no)
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
        raw, error = await judge_reply(model, prompt, sample.id, _no_letter(len(sample.choices)))
        from vqakit.scoring._extract import extract_choice

        result = None if error else extract_choice(raw, len(sample.choices))
        choice = result.choice if result is not None and result.rule == "bare" else None
        return {"raw": raw, "choice": choice, "error": error}

    def choice(self, sample: Sample, record: dict[str, Any]) -> int | None:
        return None if record.get("choice") is None else int(record["choice"])
