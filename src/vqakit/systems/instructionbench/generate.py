"""QA generation from a clip's text (item 3 of issue 13): a model writes question-answer pairs
per granularity and perspective; pairs that break a wording rule are rejected and the model is
asked again, told what was wrong, until the clip has its pairs or the attempts run out.

Journal items: step `generate`, item `<clip>:<granularity>` for the first request and
`<clip>:<granularity>:retry<k>` for the k-th regeneration, so a rerun reuses every request.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator, model_validator

from vqakit.builders import ModelSteps
from vqakit.prompts import render_prompt
from vqakit.systems.instructionbench.video_info import Perspective, VideoInfo
from vqakit.systems.instructionbench.video_text import video_text
from vqakit.systems.instructionbench.wording import check_pair

Granularity = Literal["coarse", "fine"]
STEP = "generate"
PAIRS: dict[str, int] = {"third": 3, "first": 5}  # pairs per clip, by perspective (the paper's)
CATEGORIES = (
    "step sequencing",
    "specific step recognition",
    "past step recall",
    "future step prediction",
    "intermediate steps recognition",
    "object attribute recognition",
    "object existence in steps",
    "object interaction recognition",
)
_OTHERS = re.compile(
    r"^\s*others?\s*(?:\((?P<paren>.*)\)|[:\-–]\s*(?P<tail>.*))?\s*$", re.IGNORECASE | re.DOTALL
)


def _key(text: str) -> str:
    """Words lower-cased and crudely singular, for spelling-tolerant comparison."""
    words = re.findall(r"[a-z]+", text.lower())
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words)


_KNOWN = {_key(name): name for name in CATEGORIES}


def normalise_category(text: str) -> str:
    """One of `CATEGORIES`, or `Others(<name>)`: "Step_Sequencing", "intermediate step
    recognition" and "Others: tool use" become "step sequencing", "intermediate steps
    recognition" and "Others(tool use)"; an unknown name becomes `Others(<name>)`."""
    found = _KNOWN.get(_key(text))
    if found is not None:
        return found
    others = _OTHERS.match(text)
    name = (others.group("paren") or others.group("tail") or "") if others else text
    name = " ".join(name.replace("_", " ").split()).lower()
    return f"Others({name or 'unnamed'})"


class Pair(BaseModel):
    """One pair as the model writes it (`Question`, `Answer`, `Reason`, `Category`)."""

    model_config = ConfigDict(populate_by_name=True)

    question: str = Field(alias="Question", min_length=1)
    answer: str = Field(alias="Answer", min_length=1)
    reason: str = Field("", alias="Reason")
    category: str = Field("", alias="Category")

    @field_validator("question", "answer", "reason", "category", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return " ".join(value.split()) if isinstance(value, str) else value


class Pairs(RootModel[list[Pair]]):
    """The reply: a JSON list of pairs (an object holding one such list is accepted too)."""

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, value: Any) -> Any:
        if isinstance(value, dict):
            lists = [v for v in value.values() if isinstance(v, list)]
            if len(lists) == 1:
                return lists[0]
            if "Question" in value or "question" in value:
                return [value]
        return value


class QA(BaseModel):
    """A generated pair that follows every wording rule; `qa_id` is `<clip>:<granularity>:q<n>`."""

    qa_id: str
    clip_id: str
    question: str
    answer: str
    reason: str
    category: str
    granularity: Granularity
    perspective: Perspective


class Broken(BaseModel):
    """One rule a pair broke, in which field, and the words that broke it."""

    rule: str  # a key of wording.RULES, or "duplicate" / "surplus"
    field: Literal["question", "answer"]
    found: str


class Rejection(BaseModel):
    """A pair not kept: the pair as written, the (first) rule it broke, why in words, every
    rule broken, and the request (0: the first) that wrote it."""

    pair: Pair
    rule: str
    reason: str
    broken: list[Broken]
    attempt: int


class Generation(BaseModel):
    """What generation made of one clip and granularity; `error` is set when a model request
    failed (the pairs kept before it stay in `qas`, and a rerun asks that request again)."""

    clip_id: str
    granularity: Granularity
    perspective: Perspective
    qas: list[QA] = Field(default_factory=list)
    rejected: list[Rejection] = Field(default_factory=list)
    requests: int = 0
    error: str | None = None


def _reject(
    pair: Pair, perspective: Perspective, seen: set[str], full: bool, attempt: int
) -> Rejection | None:
    """Why `pair` is not kept (None: it is): a wording rule, a repeated question, or one pair
    more than the clip needs."""
    violations = check_pair(pair.question, pair.answer, perspective)
    if violations:
        broken = [Broken(rule=v.rule, field=v.field, found=v.found) for v in violations]
        reason = "; ".join(v.reason for v in violations)
    elif pair.question.lower() in seen:
        broken = [Broken(rule="duplicate", field="question", found=pair.question)]
        reason = "repeats a question already kept"
    elif full:
        broken = [Broken(rule="surplus", field="question", found=pair.question)]
        reason = "more pairs than the clip needs"
    else:
        return None
    return Rejection(pair=pair, rule=broken[0].rule, reason=reason, broken=broken, attempt=attempt)


async def generate_qas(
    steps: ModelSteps, model: Any, clip: VideoInfo, granularity: Granularity, *, attempts: int = 3
) -> Generation:
    """The clip's pairs (3 in third person, 5 in first person), each checked by the wording
    rules; up to `attempts` requests, each later one asking only for the pairs still missing."""
    if granularity not in ("coarse", "fine"):
        raise ValueError(f"granularity must be 'coarse' or 'fine', got {granularity!r}")
    wanted = PAIRS[clip.perspective]
    result = Generation(clip_id=clip.id, granularity=granularity, perspective=clip.perspective)
    info = video_text(clip)
    last: list[Rejection] = []  # what the previous request got wrong, told to the next one
    seen: set[str] = set()
    for attempt in range(max(attempts, 1)):
        needed = wanted - len(result.qas)
        if needed <= 0:
            break
        item = f"{clip.id}:{granularity}" + (f":retry{attempt}" if attempt else "")
        prompt = render_prompt(
            "ib_generate",
            perspective=clip.perspective,
            granularity=granularity,
            count=needed,
            video_info=info,
            categories=list(CATEGORIES),
            kept=[qa.question for qa in result.qas],
            problems=[r.model_dump() for r in last],
        )
        found, error = await steps.ask(model, STEP, item, prompt, Pairs)
        result.requests += 1
        if found is None:
            result.error = error
            break
        last = []
        for pair in found.root:
            rejection = _reject(pair, clip.perspective, seen, len(result.qas) >= wanted, attempt)
            if rejection is not None:
                result.rejected.append(rejection)
                last += [rejection] if rejection.rule != "surplus" else []
                continue
            seen.add(pair.question.lower())
            result.qas.append(
                QA(
                    qa_id=f"{clip.id}:{granularity}:q{len(result.qas) + 1}",
                    clip_id=clip.id,
                    question=pair.question,
                    answer=pair.answer,
                    reason=pair.reason,
                    category=normalise_category(pair.category),
                    granularity=granularity,
                    perspective=clip.perspective,
                )
            )
    return result
