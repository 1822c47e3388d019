"""What a request may send. The door (`_guard`) refuses a body over `MAX_BODY` bytes with 413
before anything reads it, and a query value over `MAX_QUERY` characters with 422. A route then
reads the body with `json_body`: UTF-8 text (else 400), JSON read by vqakit's bounded reader (a
value nested too deep, a number beyond 64 bits, a NUL character: 422 naming the field), and the
endpoint's model with exact types (`true` is not a choice, `5` is not a list of skills) and a
length for every text and list (422 naming each field)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.requests import Request

from vqakit.files import find_unusable, parse_json
from vqakit.studio._review import validation_problems

MAX_BODY = 1 << 20  # bytes: an annotated sample with a long trace and many boxes fits many times
MAX_QUERY = 2000  # characters of one query value

Model = TypeVar("Model", bound=BaseModel)


class BodyError(Exception):
    """A request body that cannot be used: the status and each problem (`field: what`)."""

    def __init__(self, status: int, problems: list[str]) -> None:
        self.status = status
        self.problems = problems
        super().__init__("; ".join(problems))


async def json_value(request: Request) -> Any:
    """The body's JSON value (BodyError: not UTF-8, not JSON, or a value no reader keeps)."""
    raw = await request.body()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BodyError(400, [f"body: not UTF-8 text (byte {error.start})"]) from None
    try:
        data = parse_json(text)
    except ValueError as error:
        raise BodyError(400, [f"body: not JSON ({error})"]) from None
    unusable = find_unusable(data)
    if unusable is not None:
        field, problem = unusable
        raise BodyError(422, [f"{'body' if field == '-' else field}: {problem}"])
    return data


async def json_body(request: Request, model: type[Model]) -> Model:
    """The body as `model` (BodyError 422 listing each field that is missing, of another type,
    too long or not allowed)."""
    data = await json_value(request)
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise BodyError(422, validation_problems(error)) from None


def query_problem(name: str, value: str) -> str | None:
    """Why a query value is refused, or None."""
    if len(value) > MAX_QUERY:
        return f"{name}: at most {MAX_QUERY} characters"
    if any(ord(char) < 32 for char in value):
        return f"{name}: control characters are not allowed"
    return None
