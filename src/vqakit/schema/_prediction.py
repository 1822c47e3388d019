"""What a method produced for one sample: one line of a run's predictions.jsonl."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict


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
    frames_s: list[float] = []  # times of the frames actually sent
    error: PredictionError | None = None
    latency_s: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    # retrieval methods: what was retrieved and shown (query, clips, windows, captions, passages)
    retrieval: dict[str, Any] | None = None

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
