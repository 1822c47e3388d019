"""The reply of a claim judge: a label and a one-line justification for every claim, by its
number, then a 0-5 score and a short explanation.

Validated with pydantic (`verdicts_for` binds the claim count and the judge's labels), so a reply
that leaves a claim out, labels one twice, names a claim that does not exist or uses a label
outside the judge's scale is sent back with the problem (`complete_structured` asks again).
Labels are read in any case and spelling the judges are likely to use (`PARTIALLY SUPPORTED`,
`partially-supported`, the rubric's abbreviations `PS`, `NC`, ...) and stored in one canonical
lower-case form. The official evaluation's keys (`claim_evaluations`, `claim_number`,
`factuality_score`, ...) are read too.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator


class ClaimVerdict(BaseModel):
    model_config = ConfigDict(extra="ignore")

    claim: int = Field(validation_alias=AliasChoices("claim", "claim_number", "number"))
    label: str
    justification: str = Field("", validation_alias=AliasChoices("justification", "reason"))

    @field_validator("justification", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return "" if value is None else value


def label_key(label: str) -> str:
    """`Partially supported` -> `PARTIALLY_SUPPORTED`: the spelling labels are looked up by."""
    return re.sub(r"[^A-Z]+", "_", label.upper()).strip("_")


class Verdicts(BaseModel):
    """A claim judge's reply; use a subclass from `verdicts_for`."""

    model_config = ConfigDict(extra="ignore")

    claims: list[ClaimVerdict] = Field(validation_alias=AliasChoices("claims", "claim_evaluations"))
    score: float = Field(
        ge=0,
        le=5,
        validation_alias=AliasChoices("score", "factuality_score", "relevance_score", "coherence_score"),
    )
    explanation: str = Field("", validation_alias=AliasChoices("explanation", "score_justification"))

    n_claims: ClassVar[int] = 0
    spellings: ClassVar[dict[str, str]] = {}  # label_key(spelling) -> canonical label

    @field_validator("explanation", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return "" if value is None else value

    @model_validator(mode="after")
    def _every_claim_once(self) -> Verdicts:
        numbers = [verdict.claim for verdict in self.claims]
        expected = set(range(1, self.n_claims + 1))
        problems = []
        if missing := sorted(expected - set(numbers)):
            problems.append(f"claims {', '.join(map(str, missing))} have no label")
        if unknown := sorted(set(numbers) - expected):
            problems.append(
                f"there is no claim {', '.join(map(str, unknown))} (claims are 1 to {self.n_claims})"
            )
        if twice := sorted({n for n in numbers if numbers.count(n) > 1}):
            problems.append(f"claims {', '.join(map(str, twice))} are labelled more than once")
        allowed = sorted({label.upper() for label in self.spellings.values()})
        for verdict in self.claims:
            if label_key(verdict.label) not in self.spellings:
                problems.append(
                    f"claim {verdict.claim}: {verdict.label!r} is not one of {', '.join(allowed)}"
                )
        if problems:
            raise ValueError("; ".join(problems))
        self.claims = sorted(
            (v.model_copy(update={"label": self.spellings[label_key(v.label)]}) for v in self.claims),
            key=lambda verdict: verdict.claim,
        )
        return self


def verdicts_for(spellings: dict[str, str], n_claims: int) -> type[Verdicts]:
    """The reply schema of a judge with these label spellings, for an answer of `n_claims` claims."""
    return type(
        "Verdicts", (Verdicts,), {"n_claims": n_claims, "spellings": spellings, "__module__": __name__}
    )


def spellings(labels: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """{canonical label: other spellings} -> {label_key(spelling): canonical label}, the canonical
    label itself included."""
    return {label_key(spelled): label for label, others in labels.items() for spelled in (label, *others)}
