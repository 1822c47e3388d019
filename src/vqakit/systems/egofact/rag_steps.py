"""The model steps of the retrieval methods: what each must return, what it costs, and the
answer step's prompt and reading."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from vqakit.methods import MethodContext
from vqakit.prompts import render_prompt
from vqakit.retrieval import passage_text
from vqakit.schema import Benchmark, Sample
from vqakit.scoring import extract_choice, format_options

Mode = Literal["rag", "localize", "best-piece", "split", "oracle"]


class RagOptions(BaseModel):
    """Options of the retrieval methods (`--method-arg KEY=VALUE`, or the named flags)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    index: str | None = None  # index folder; None: the benchmark's default one in the vqakit cache
    # passages (and descriptions): minilm, sentence-transformers:X, openai:<model>,
    # openai-compatible:<base url>#<model> (vqakit.models.TEXT_EMBEDDER_FORMS); None: the index's
    text_embedder: str | None = None
    image_embedder: str | None = None  # clip:<...>; None: the index's (none: clips found by descriptions)
    # clip:<...> that scores frames inside retrieved clips (rag+localize, rag+best-piece), e.g.
    # MetaCLIP while image_embedder retrieves; its frames are added to the index; None: image_embedder
    localize_embedder: str | None = None
    top_clips: int = Field(5, ge=1)  # clips retrieved (pieces, for rag+split)
    window_s: float = Field(5.0, gt=0)  # localization window / piece length (best-piece, split), seconds
    shift_s: float = Field(1.0, ge=0)  # how far a before/after cue moves the window
    caption_frames: int = Field(15, ge=1)  # frames per retrieved clip (the frame budget)
    approximate: bool = False  # approximate (IVF) search instead of exact
    keywords: bool = True  # a keyword step adds the question's visible words to the clip query

    @field_validator("text_embedder")
    @classmethod
    def _text_embedder(cls, value: str | None) -> str | None:
        from vqakit.models import check_text_embedder

        return None if value is None else check_text_embedder(value)

    @field_validator("image_embedder", "localize_embedder")
    @classmethod
    def _image_embedder(cls, value: str | None) -> str | None:
        if value is not None and not (value.startswith("clip:") and value[5:]):
            raise ValueError(f"{value!r}: an image-text embedder is clip:<hub id or folder>")
        return value


class RewrittenQuery(BaseModel):
    query: str = Field(min_length=1)


class Localization(BaseModel):
    description: str = Field(min_length=1)
    position: Literal["before", "after", "within"] = "within"

    @field_validator("position", mode="before")
    @classmethod
    def _lower(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class PassageQueries(BaseModel):
    queries: list[str]


class RagAnswer(BaseModel):
    Answer: str
    Explanation: str = ""

    @field_validator("Answer", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) else value


@dataclass
class StepCosts:
    """Cost of the model steps of one sample, and the steps that failed."""

    latency_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0
    errors: dict[str, str] = field(default_factory=dict)

    def add(self, completion: Any) -> None:
        self.latency_s += completion.latency_s
        self.input_tokens += completion.usage.input_tokens
        self.output_tokens += completion.usage.output_tokens
        self.calls += 1
        self.cached_calls += int(completion.cached)

    def fields(self) -> dict[str, Any]:
        """The prediction fields these costs fill."""
        return {
            "latency_s": self.latency_s,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "calls": self.calls,
            "cached_calls": self.cached_calls,
        }


class StepFailed(Exception):
    """A pipeline step that leaves nothing to answer from; becomes the prediction's error."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


async def structured_step(
    context: MethodContext, costs: StepCosts, step: str, sample_id: str, prompt: str, schema: type[BaseModel]
) -> Any:
    """One validated-JSON model step; None (and the error noted) when it fails."""
    from vqakit.models import Message, complete_structured

    found, completion = await complete_structured(
        context.model, [Message.user(prompt)], schema, sample_id=sample_id
    )
    costs.add(completion)
    if found is None and completion.error is not None:
        costs.errors[step] = f"{completion.error.type}: {completion.error.message}"
    return found


def answer_prompt(sample: Sample, captions: list[str], passages: list[Any], benchmark: Benchmark) -> str:
    """The answer step's prompt: clip descriptions and passages, then the question."""
    context = render_prompt(
        "rag_context",
        captions=[text.strip() for text in captions],
        passages=[passage_text(benchmark.passages[hit.id]).strip() for hit in passages],
    )
    fields = {"context": context + "\n", "question": sample.question, "with_passages": bool(passages)}
    if sample.choices is None:
        return render_prompt("rag_answer_open", **fields)
    return render_prompt("rag_answer", options=format_options(sample.choices), **fields)


def read_answer(sample: Sample, reply: str) -> tuple[int | None, str]:
    """The option a JSON `{"Answer": ...}` reply names; the rules read the whole reply otherwise."""
    from vqakit.models import parse_json_lenient

    assert sample.choices is not None
    try:
        parsed = RagAnswer.model_validate(parse_json_lenient(reply))
        extraction = extract_choice(parsed.Answer, len(sample.choices), choices=sample.choices)
        if extraction.choice is not None:
            return extraction.choice, f"json:{extraction.rule}"
    except ValueError:
        pass
    extraction = extract_choice(reply, len(sample.choices), choices=sample.choices)
    return extraction.choice, extraction.rule if extraction.choice is not None else extraction.reason
