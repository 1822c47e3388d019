"""Asking for JSON and getting a validated object back.

`parse_json_lenient` accepts what models actually write: code fences, prose before or after the
object, single quotes, trailing commas, Python literals (True/False/None) and // comments.
`complete_structured` validates against a pydantic model and, on failure, sends the validation
error back to the model and asks again, up to `max_repairs` times.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from vqakit.models._messages import CallError, Completion, Message

Schema = TypeVar("Schema", bound=BaseModel)

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def _outermost(text: str) -> str | None:
    """The first balanced {...} or [...] in the text, ignoring brackets inside strings."""
    start = next((i for i, ch in enumerate(text) if ch in "{["), None)
    if start is None:
        return None
    depth, quote, escaped = 0, None, False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            escaped = not escaped and ch == "\\"
            if ch == quote and not escaped:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return text[start:]


def _repair(candidate: str) -> str:
    candidate = re.sub(r"(?m)^\s*//.*$", "", candidate)
    candidate = re.sub(r",\s*([}\]])", r"\1", candidate)
    candidate = re.sub(
        r"\bTrue\b", "true", re.sub(r"\bFalse\b", "false", re.sub(r"\bNone\b", "null", candidate))
    )
    candidate = re.sub(r"'([^'\\]*(?:\\.[^'\\]*)*)'", lambda m: json.dumps(m.group(1)), candidate)
    return candidate


def parse_json_lenient(text: str) -> Any:
    """Parse the JSON value a reply contains; raises ValueError saying what was wrong."""
    blocks = _FENCE.findall(text) or [text]
    errors = []
    for block in blocks:
        candidate = _outermost(block)
        if candidate is None:
            continue
        for attempt in (candidate, _repair(candidate)):
            try:
                return json.loads(attempt)
            except json.JSONDecodeError as error:
                errors.append(error.msg)
    raise ValueError("no JSON object found in the reply" if not errors else f"invalid JSON ({errors[-1]})")


async def complete_structured(
    model: Any,
    messages: list[Message],
    schema: type[Schema],
    *,
    max_repairs: int = 2,
    sample_id: str | None = None,
    **params: Any,
) -> tuple[Schema | None, Completion]:
    """Ask `model` and validate its JSON reply as `schema`; returns (object or None, last completion)."""
    conversation = list(messages)
    completion = Completion(None, str(model))
    for _ in range(max_repairs + 1):
        completion = await model.complete(conversation, sample_id=sample_id, **params)
        if completion.error is not None:
            return None, completion
        try:
            return schema.model_validate(parse_json_lenient(completion.text or "")), completion
        except (ValueError, ValidationError) as error:
            problem = str(error)
        conversation = [
            *conversation,
            Message.of("assistant", completion.text or ""),
            Message.user(
                f"That reply could not be used: {problem}\nReply again with only the corrected JSON."
            ),
        ]
    return None, Completion(completion.text, completion.model, error=CallError("invalid_output", problem))
