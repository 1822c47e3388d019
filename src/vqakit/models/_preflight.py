"""One cheap check of each model endpoint before a run, so that a server that is down, wrong or
stuck is named in seconds instead of after every sample has been retried.

Each backend registers how it is checked (`register_backend(preflight=...)`): the API backends
ask for the provider's model list or the model's record, or, where a server has no list, send a
1-token request. What refuses a run (`PreflightError`, one line naming the endpoint and the HTTP
status): a connection refused or a host not found, no answer within the check's time limit, a key
refused (401/403), nothing at that URL (404), a model the server does not have. What does not: a
rate limit or a server error on the check (a run's retries deal with those), said as a note.
Backends without a check (local models, replays) are not contacted.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from vqakit.models._backends import backend_info
from vqakit.models._retry import http_error_text
from vqakit.models._secrets import redact_secrets
from vqakit.models._spec import ModelSpec, parse_model_spec

PREFLIGHT_TIMEOUT_S = 4.0  # one check; `VQAKIT_PREFLIGHT_TIMEOUT` changes it
SKIP = "--no-preflight skips this check"


class PreflightError(ValueError):
    """An endpoint that cannot serve the run: one line naming it and what it answered."""


class EndpointProblem(Exception):
    """What one check found wrong (the caller adds which model of the run it is)."""


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes

    @property
    def text(self) -> str:
        """The body, or the `error.message` of a JSON error body (OpenAI's, Anthropic's, Gemini's)."""
        text = self.body.decode("utf-8", "replace")
        try:
            message = json.loads(text)["error"]["message"]
        except (ValueError, KeyError, TypeError):
            return text
        return message if isinstance(message, str) else text


def preflight_timeout_s() -> float:
    try:
        return max(0.1, float(os.environ.get("VQAKIT_PREFLIGHT_TIMEOUT", PREFLIGHT_TIMEOUT_S)))
    except ValueError:
        return PREFLIGHT_TIMEOUT_S


async def http(
    session: Any, method: str, url: str, timeout_s: float, headers: dict[str, str], body: Any = None
) -> Answer:
    """One request over `session` (an `HttpClient`); EndpointProblem when no answer comes
    (refused, host unknown, no reply in time)."""
    from vqakit.models._http import HttpFailure

    data = None if body is None else json.dumps(body).encode()
    try:
        reply = await session.request(method, url, data, timeout_s=timeout_s, headers=headers)
    except TimeoutError:
        raise EndpointProblem(
            f"{url}: no answer within {timeout_s:g} s (the server is stuck, busy or not an HTTP server)"
        ) from None
    except HttpFailure as error:
        cause = error.__cause__ or error.__context__
        text = str(error)
        if isinstance(cause, ConnectionRefusedError) or "Connect call failed" in text or "refused" in text:
            why = "connection refused (nothing listens there: is the server running, on this port?)"
        elif isinstance(cause, socket.gaierror) or "Name or service not known" in text or "nodename" in text:
            why = f"host {urlsplit(url).hostname!r} not found"
        else:
            why = text
        raise EndpointProblem(f"{url}: {why}") from None
    return Answer(reply.status, reply.body)


def refusal(answer: Answer, url: str, hint: str = "") -> EndpointProblem | None:
    """The problem an answer is for a run (a key refused, nothing at the URL), or None."""
    if answer.status in (401, 403):
        hint = "the key was refused (`vqakit models` says where each backend reads its key)"
    elif answer.status != 404:
        return None
    return EndpointProblem(http_error_text(answer.status, url, answer.text) + (f"; {hint}" if hint else ""))


def note(answer: Answer, url: str) -> str:
    return f"{http_error_text(answer.status, url, answer.text)}; going on (the run retries failed requests)"


def _listed(answer: Answer) -> list[str] | None:
    """The model ids of an OpenAI-shaped model list, None when the answer is not one."""
    try:
        data = json.loads(answer.body).get("data")
        return [str(item["id"]) for item in data]
    except (ValueError, AttributeError, TypeError, KeyError):
        return None


async def check_model_list(
    session: Any, root: str, model: str, headers: dict[str, str], timeout_s: float, ping: str
) -> str | None:
    """An OpenAI-shaped server: its `/models` list names the model (an empty list cannot tell).
    Where it has no list, or lists other names (a server may take an alias it does not list,
    as Ollama takes `llama3` for `llama3:latest`), a 1-token chat request with the text `ping`
    decides: refused with 404, 401 or 403, the model or the URL is wrong."""
    url = f"{root}/models"
    answer = await http(session, "GET", url, timeout_s, headers)
    unlisted = ""
    if answer.status == 200 and (ids := _listed(answer)) is not None:
        if not ids or model in ids:
            return None
        shown = ", ".join(ids[:8]) + (f" and {len(ids) - 8} more" if len(ids) > 8 else "")
        unlisted = f"{url} does not list {model!r} (it serves {shown}); "
    elif answer.status in (401, 403):
        raise refusal(answer, url) or EndpointProblem(url)
    elif answer.status == 429 or answer.status >= 500:
        return note(answer, url)
    chat = f"{root}/chat/completions"
    body = {"model": model, "messages": [{"role": "user", "content": ping}], "max_tokens": 1}
    answer = await http(session, "POST", chat, timeout_s, headers, body)
    hint = "" if unlisted else "is the base URL right? OpenAI-compatible servers usually serve under /v1"
    if (problem := refusal(answer, chat, hint)) is not None:
        raise EndpointProblem(f"{unlisted}{problem}")
    return None if answer.status == 200 else unlisted + note(answer, chat)


async def check_model_record(session: Any, url: str, headers: dict[str, str], timeout_s: float) -> str | None:
    """An API that answers a model's own record at `url`: 200, or 404 for a model it lacks."""
    answer = await http(session, "GET", url, timeout_s, headers)
    if answer.status == 200:
        return None
    if (problem := refusal(answer, url, "the API has no such model")) is not None:
        raise problem
    return note(answer, url)


async def _check(session: Any, spec: ModelSpec, timeout_s: float) -> str | None:
    check = backend_info(spec.backend).preflight
    return None if check is None else await check(session, spec, timeout_s)


def preflight(models: Sequence[tuple[str, str, float | None]], timeout_s: float | None = None) -> list[str]:
    """Check each model's endpoint at once, concurrently: `models` are (role, spec, request time
    limit or None), the role naming it in messages (`--model`, `judge open`). Returns notes for
    the user; PreflightError (one line) for the first model, in the order given, that cannot be
    used."""
    from vqakit.models._http import HttpClient

    limit = timeout_s or preflight_timeout_s()
    roles: dict[str, list[str]] = {}
    checked: dict[str, tuple[ModelSpec, float]] = {}
    for role, text, request_s in models:
        spec = parse_model_spec(text)
        if backend_info(spec.backend).preflight is None:
            continue
        key = f"{spec.backend}:{spec.base_url}#{spec.model}"
        roles.setdefault(key, []).append(role)
        seconds = min(limit, spec.limits.request_s or request_s or limit)
        checked[key] = (spec, min(seconds, checked[key][1]) if key in checked else seconds)
    if not checked:
        return []

    async def run() -> list[str | BaseException]:
        session = HttpClient()
        try:
            checks = [_check(session, spec, seconds) for spec, seconds in checked.values()]
            return await asyncio.gather(*checks, return_exceptions=True)
        finally:
            await session.close()

    notes = []
    for key, outcome in zip(checked, asyncio.run(run()), strict=True):
        who = " and ".join(roles[key])
        name = redact_secrets(str(checked[key][0]))
        if isinstance(outcome, EndpointProblem):
            raise PreflightError(f"{who} {name}: {redact_secrets(str(outcome))}; {SKIP}")
        if isinstance(outcome, BaseException):
            raise outcome
        if outcome:
            notes.append(f"{who} {name}: {redact_secrets(outcome)}")
    return notes
