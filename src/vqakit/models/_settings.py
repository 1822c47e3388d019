"""Generation settings: what a model is asked to do on every call, per model.

Given after the model name in a spec as a query string
(`openai:o4-mini?reasoning_effort=high&max_tokens=8000`), or as `Model(..., settings=...)`,
or per call (`complete(..., max_tokens=8)`); later ones win, key by key. Each backend sends
them under the names its API expects (see the backend modules).
"""

from __future__ import annotations

from typing import Any, Literal
from urllib.parse import parse_qsl, quote

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from vqakit.models._backends import find_backend

Effort = Literal["none", "minimal", "low", "medium", "high", "xhigh", "max"]

# defaults where an API or a local model needs a number and the user gave none
ANTHROPIC_MAX_TOKENS = 4096  # Anthropic requires max_tokens: 4096, or thinking budget + 4096
ANTHROPIC_THINKING_BUDGET = 4096  # `thinking=true` without a budget (the API needs one, >= 1024)
HF_MAX_NEW_TOKENS = 1024  # transformers' generate needs a bound; an API has its own


class GenerationSettings(BaseModel):
    """How a model generates. Every field is optional; unset means "not sent" (the API's or
    model's own default), with two documented defaults:

    - temperature is 0 unless a reasoning setting is given (`reasoning_effort`, a
      `thinking_budget` above 0, or `thinking=true`): reasoning models reject or ignore it.
    - max_tokens is not sent unless given: there is no cap of vqakit's own. Where a number is
      required, the backend uses a documented default (Anthropic: 4096, or the thinking budget
      + 4096; `hf:`: 1024 new tokens).

    Fields:
    temperature, top_p, seed: sampling. max_tokens: the most output tokens (thinking included
    where the API counts it). system: a system prompt added as the first message. stop: strings
    that end the reply. reasoning_effort: none/minimal/low/medium/high/xhigh/max, where the
    model takes it. thinking_budget: tokens for thinking, 0 turns thinking off. thinking:
    true/false turns a server's or chat template's thinking mode on/off.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(None, ge=0, le=2)
    top_p: float | None = Field(None, gt=0, le=1)
    max_tokens: int | None = Field(None, ge=1)
    seed: int | None = None
    system: str | None = None
    stop: tuple[str, ...] | None = None
    reasoning_effort: Effort | None = None
    thinking_budget: int | None = Field(None, ge=0)
    thinking: bool | None = None

    @field_validator("stop", mode="before")
    @classmethod
    def _one_stop(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value  # `stop="END"` is one stop string

    @model_validator(mode="after")
    def _consistent(self) -> GenerationSettings:
        if self.thinking is False and self.thinking_budget:
            raise ValueError("thinking=false contradicts thinking_budget above 0")
        return self

    @property
    def thinks(self) -> bool | None:
        """True/False where the settings turn thinking on/off, None where they leave it alone."""
        if self.thinking is not None:
            return self.thinking
        if self.thinking_budget is not None:
            return self.thinking_budget > 0
        return None

    @property
    def reasoning(self) -> bool:
        """Whether a reasoning setting is given (then temperature has no default)."""
        return self.reasoning_effort is not None or bool(self.thinks)

    def with_defaults(self) -> GenerationSettings:
        """These settings with the documented defaults filled in (what is sent)."""
        if self.temperature is None and not self.reasoning:
            return self.model_copy(update={"temperature": 0.0})
        return self

    def given(self) -> dict[str, Any]:
        """The settings that are set, in field order (for cache keys and the wire)."""
        return self.model_dump(exclude_none=True)

    def merged(self, overrides: GenerationSettings | dict[str, Any] | None) -> GenerationSettings:
        """These settings with every key the overrides set replaced (validated)."""
        if not overrides:
            return self
        update = as_settings(overrides).model_dump(exclude_unset=True)
        return as_settings({**self.model_dump(exclude_unset=True), **update})


def as_settings(value: GenerationSettings | dict[str, Any] | None) -> GenerationSettings:
    """Validate a dict of settings; ValueError names unknown keys and bad values."""
    if isinstance(value, GenerationSettings):
        return value
    try:
        return GenerationSettings.model_validate(value or {})
    except ValidationError as error:
        raise ValueError(f"generation settings: {_problems(error)}") from None


def _problems(error: ValidationError) -> str:
    known = ", ".join(GenerationSettings.model_fields)
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"])
        if item["type"] == "extra_forbidden":
            problems.append(f"unknown setting {where!r} (known: {known})")
        elif where:
            problems.append(f"{where}={item.get('input')!r}: {item['msg']}")
        else:
            problems.append(item["msg"].removeprefix("Value error, "))
    return "; ".join(problems)


def parse_settings_query(query: str) -> GenerationSettings:
    """`key=value&key=value` (URL-encoded; `stop` may repeat) into settings."""
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise ValueError(f"settings {query!r}: use key=value&key=value") from None
    values: dict[str, Any] = {}
    for key, value in pairs:
        if key == "stop":
            values.setdefault("stop", []).append(value)
        elif key in values:
            raise ValueError(f"settings {query!r}: {key!r} given twice")
        else:
            values[key] = None if value == "" else value
    return as_settings(values)


def settings_query(settings: GenerationSettings) -> str:
    """The canonical query string: set keys in field order, values URL-encoded."""
    parts = []
    for key, value in settings.given().items():
        for item in value if isinstance(value, tuple) else (value,):
            text = ("true" if item else "false") if isinstance(item, bool) else str(item)
            parts.append(f"{key}={quote(text, safe='')}")
    return "&".join(parts)


def unsupported(backend: str, settings: GenerationSettings) -> list[str]:
    """Settings this backend cannot send (a run asking for them would not get them), as its
    registration says (`register_backend(unsupported=...)`)."""
    info = find_backend(backend)
    return info.unsupported(settings) if info is not None and info.unsupported is not None else []


def check_supported(backend: str, settings: GenerationSettings) -> None:
    if problems := unsupported(backend, settings):
        raise ValueError(f"{backend}: cannot send {'; '.join(problems)}")
