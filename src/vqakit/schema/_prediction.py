"""What a method produced for one sample: one line of a run's predictions.jsonl."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

NOT_APPLICABLE = "not_applicable"  # the method does not answer this kind of sample: not a failure


class PredictionError(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    type: str
    message: str


class Prediction(BaseModel):
    """A failure is `error` with a reason, never a made-up answer that could be scored."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    sample_id: str
    method: str
    model: str | None = None
    reply: str | None = None  # raw model reply
    choice: int | None = None  # MCQ: extracted option index; None = abstained or not MCQ
    extraction: str | None = None  # extraction rule, or why it abstained
    frames_s: list[float] = Field(default_factory=list)  # times of the frames actually sent
    error: PredictionError | None = None
    latency_s: float = 0.0  # summed over the sample's model calls
    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0  # model calls made for the sample (cache hits included)
    cached_calls: int = 0  # of which answered from the response cache
    reasoning: str | None = None  # the model's separate thinking text, when it returns one
    prompt: str | None = None  # the text of the final request (question, options, subtitles sent)
    # files (relative to the run folder) of images the method saved as sent
    images: list[str] = Field(default_factory=list)
    # `--input video`: what was sent of the video (how, start_s, end_s, fps, bytes)
    video: dict[str, Any] | None = None
    # retrieval methods: what was retrieved and shown (query, clips, windows, captions, passages)
    retrieval: dict[str, Any] | None = None

    @property
    def failed_for_good(self) -> bool:
        """An outcome that trying again cannot change: a success, or a method that does not apply."""
        return self.error is None or self.error.type == NOT_APPLICABLE

    @classmethod
    def not_applicable(cls, sample_id: str, method: str, why: str) -> Prediction:
        """The method does not answer this sample (e.g. an MCQ-only baseline on an open-ended one)."""
        return cls.failed(sample_id, method, NOT_APPLICABLE, why)

    @classmethod
    def failed(
        cls, sample_id: str, method: str, kind: str, message: str, *, model: str | None = None, **fields: Any
    ) -> Prediction:
        """A prediction that ended in an error of `kind` (never an answer that could be scored)."""
        return cls(
            sample_id=sample_id,
            method=method,
            model=model,
            error=PredictionError(type=kind, message=message),
            **fields,
        )
