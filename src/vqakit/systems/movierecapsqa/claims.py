"""The `claims` judge: an answer split into atomic claims, once, for the three claim judges
(factuality, relevance, coherence) that read its record (`needs = ("claims",)`).

The question is shown only to resolve what the answer's words refer to; claims come from the
answer alone (prompt `mr_claims`, a JSON `{"claims": [...]}` validated with pydantic and asked
again once or twice when malformed). Its record in judgments.jsonl:

    {"raw": reply, "claims": ["...", ...], "status": "claims" | "no_claims" | "empty_answer",
     "error": None | message}

An empty answer is recorded as `empty_answer` without a model call; a reply that states nothing
checkable gives `no_claims`. Neither is scored by the claim judges (they say so in their records
and in the summaries), never counted as 0 or 5. A failed call is an error (graded again on
resume), and so are the claim judges' records that needed it.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from vqakit.prompts import render_prompt
from vqakit.schema import Prediction, Sample
from vqakit.scoring import Judge, register_judge

CLAIMS = "claims"
EMPTY_ANSWER = "empty_answer"
NO_CLAIMS = "no_claims"


class ClaimList(BaseModel):
    """The extractor's reply; `atomic_claims` (the official evaluation's key) is read too."""

    model_config = ConfigDict(extra="ignore")

    claims: list[str] = Field(validation_alias=AliasChoices("claims", "atomic_claims"))

    @field_validator("claims")
    @classmethod
    def _non_empty(cls, value: list[str]) -> list[str]:
        return [" ".join(claim.split()) for claim in value if claim.strip()]


async def ask_json(
    model: Any, prompt: str, schema: type[BaseModel], sample_id: str
) -> tuple[Any, str | None, str | None]:
    """(validated reply or None, raw reply text, error message) of one structured judge call."""
    from vqakit.models import Message, complete_structured

    parsed, completion = await complete_structured(model, [Message.user(prompt)], schema, sample_id=sample_id)
    error = completion.error.message if completion.error is not None else None
    return parsed, completion.text, error


def shared_claims(earlier: dict[str, dict[str, Any]]) -> tuple[list[str] | None, str | None, str | None]:
    """(claims, status, problem) from the `claims` record a claim judge received. `problem` is
    set when there is nothing to judge yet (no record, or a failed extraction): the claim judge
    records it as its error, so it is graded again once the claims are there."""
    record = earlier.get(CLAIMS)
    if record is None:
        return None, None, "no claims to judge: assign the claims judge a model too (--judge claims=SPEC)"
    if record.get("error") is not None:
        return None, None, f"claim extraction failed: {record['error']}"
    claims = record.get("claims") or []
    return claims, record.get("status") or (CLAIMS if claims else NO_CLAIMS), None


@register_judge
class ClaimsJudge(Judge):
    """Atomic claims of an open-ended answer, shared by the factuality, relevance and coherence
    judges."""

    name = CLAIMS
    title = "Atomic claims"
    show_raw = False  # the card lists the claims (`claims_report.claims_detail`)

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        return not sample.is_mcq

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        answer = (prediction.reply or "").strip()
        if not answer:
            return {"raw": None, "claims": [], "status": EMPTY_ANSWER, "error": None}
        prompt = render_prompt("mr_claims", question=sample.question, answer=answer)
        parsed, raw, error = await ask_json(model, prompt, ClaimList, f"{sample.id}:{CLAIMS}")
        if parsed is None:
            return {
                "raw": raw,
                "claims": None,
                "status": None,
                "error": error or "no claim list in the reply",
            }
        claims = parsed.claims
        return {"raw": raw, "claims": claims, "status": CLAIMS if claims else NO_CLAIMS, "error": None}

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        if record.get("error") is not None or record.get("claims") is None:
            return {}
        return {"n_claims": len(record["claims"]), "claims_status": record.get("status")}

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Claims per answer, and how many answers were empty or stated nothing checkable (not
        the `{key: {n, mean, ci95}}` shape: the claim-scores section of the report shows it)."""
        extracted = [row for row in rows if "n_claims" in row]
        if not extracted:
            return None
        with_claims = [row["n_claims"] for row in extracted if row["n_claims"]]
        return {
            "answers": len(extracted),
            "claims_per_answer": sum(with_claims) / len(with_claims) if with_claims else None,
            "no_claims": sum(1 for row in extracted if row["claims_status"] == NO_CLAIMS),
            "empty_answers": sum(1 for row in extracted if row["claims_status"] == EMPTY_ANSWER),
        }
