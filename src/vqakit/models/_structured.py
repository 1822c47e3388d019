"""Asking for JSON and getting a validated object back.

`parse_json_lenient` accepts what models actually write: code fences, prose before or after the
object, and what json-repair mends (single quotes, trailing commas, Python literals, comments).
`complete_structured` validates against a pydantic model and, on failure, sends the validation
error back to the model and asks again, up to `max_repairs` times. Only valid replies reach the
response cache, so a rerun after a failure asks the model again.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

from vqakit.models._messages import CallError, Completion, Message
from vqakit.prompts import render_prompt

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


def parse_json_lenient(text: str) -> Any:
    """Parse the JSON value a reply contains; raises ValueError saying what was wrong.

    The first balanced value of the first fenced block (or of the whole reply) is read strictly,
    and what strict JSON rejects (single quotes, trailing commas, Python literals, comments,
    missing quotes) is repaired by the json-repair library."""
    blocks = _FENCE.findall(text) or [text]
    for block in blocks:
        candidate = _outermost(block)
        if candidate is None:
            continue
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as error:
            problem = error.msg
        repaired = json_repair.loads(candidate)
        if repaired in ("", None):
            raise ValueError(f"invalid JSON ({problem})")
        return repaired
    raise ValueError("no JSON object found in the reply")


def _problem(completion: Completion, schema: type[BaseModel]) -> str | None:
    """Why a reply is not valid JSON of `schema` (None when it is): such a reply is never cached."""
    try:
        schema.model_validate(parse_json_lenient(completion.text or ""))
    except (ValueError, ValidationError) as error:
        return str(error)
    return None


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
    problem = ""
    for _ in range(max_repairs + 1):
        completion = await model.complete(
            conversation, sample_id=sample_id, check=lambda reply: _problem(reply, schema), **params
        )
        if completion.error is not None:
            return None, completion
        try:
            return schema.model_validate(parse_json_lenient(completion.text or "")), completion
        except (ValueError, ValidationError) as error:
            problem = str(error)
        conversation = [
            *conversation,
            Message.of("assistant", completion.text or ""),
            Message.user(render_prompt("structured_repair", problem=problem)),
        ]
    return None, Completion(completion.text, completion.model, error=CallError("invalid_output", problem))
