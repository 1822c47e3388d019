"""OpenAI and OpenAI-compatible chat completions (vLLM, SGLang, Ollama, llama.cpp, ...).

Generation settings on the wire. Both: temperature, top_p, seed, stop, reasoning_effort (as
named); temperature is left out when a reasoning setting is given and no temperature is.
`openai:` sends max_tokens as `max_completion_tokens` (OpenAI's name; reasoning models reject
`max_tokens`) and takes no thinking switch. OpenAI-compatible servers get `max_tokens` and,
for `thinking` / `thinking_budget`, `chat_template_kwargs: {"enable_thinking": ...,
"thinking_budget": ...}` (vLLM and SGLang hand these to the model's chat template, so a budget
is a hint there). Thinking text comes back from `reasoning_content` or `reasoning`, or from
`<think>...</think>` in the reply where the server does not separate it.
"""

from __future__ import annotations

import base64
import json
import os
from functools import lru_cache
from typing import Any

from vqakit.models._backends import register_backend
from vqakit.models._images import data_url, sent_jpeg, wire_ready
from vqakit.models._messages import (
    Completion,
    Message,
    Part,
    Text,
    Usage,
    Video,
    as_timed_images,
    split_think_tags,
)
from vqakit.models._retry import BackendError, classify_status
from vqakit.models._secrets import BASIC_AUTH_VARIABLE, api_key
from vqakit.models._settings import GenerationSettings
from vqakit.models._spec import ModelSpec
from vqakit.models._video import openai_video

OPENAI_URL = "https://api.openai.com/v1"


def to_openai_messages(messages: list[Message], image_max_side: int | None) -> list[dict[str, Any]]:
    converted = []
    for message in messages:
        if all(isinstance(p, Text) for p in message.parts):
            converted.append({"role": message.role, "content": "\n".join(p.text for p in message.parts)})
            continue
        content = [item for part in message.parts for item in _content(part, image_max_side)]
        converted.append({"role": message.role, "content": content})
    return converted


def _content(part: Part, image_max_side: int | None) -> list[dict[str, Any]]:
    if isinstance(part, Video):
        return [openai_video(part)]
    return [
        {"type": "text", "text": item.text}
        if isinstance(item, Text)
        else {"type": "image_url", "image_url": {"url": data_url(item.image, image_max_side)}}
        for item in as_timed_images((part,))
    ]


_IMAGE_HEAD = b'{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,'
_IMAGE_TAIL = b'"}}'


def openai_body(
    model: str, messages: list[Message], image_max_side: int | None, fields: dict[str, Any]
) -> bytes:
    """`json.dumps({"model": model, "messages": to_openai_messages(...), **fields}).encode()`, byte
    for byte, put together from pieces: an image's base64 is made once per `EncodedImage` (a frame
    sent to many questions is encoded once) and copied in, never escaped by the JSON encoder."""
    chunks = [b'{"model": ', _json(model), b', "messages": [']
    for number, message in enumerate(messages):
        chunks += [b", " if number else b"", b'{"role": ', _json(message.role), b', "content": ']
        if all(isinstance(p, Text) for p in message.parts):
            chunks += [_json("\n".join(p.text for p in message.parts)), b"}"]
            continue
        items: list[bytes] = []
        for part in message.parts:
            if isinstance(part, Video):
                items += [_json(openai_video(part)), b", "]
                continue
            for item in as_timed_images((part,)):
                if isinstance(item, Text):
                    items.append(_text_item(item.text))
                else:
                    image = item.image
                    if not wire_ready(image, image_max_side):
                        image = sent_jpeg(image, image_max_side)
                    items += [_IMAGE_HEAD, image.base64, _IMAGE_TAIL]
                items.append(b", ")
        if items:
            items.pop()
        chunks += [b"[", *items, b"]}"]
    chunks.append(b"]")
    for key, value in fields.items():
        chunks += [b", ", _json(key), b": ", _json(value)]
    chunks.append(b"}")
    return b"".join(chunks)


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


@lru_cache(maxsize=4096)  # time labels recur in every request on a video
def _text_item(text: str) -> bytes:
    return _json({"type": "text", "text": text})


COMPATIBLE_KEY_HELP = (
    "set VQAKIT_API_KEY (sent as a Bearer token), or VQAKIT_API_BASIC_AUTH=user:password for a "
    "server behind basic auth, in the environment"
)


def authorization(backend: str, *, required: bool) -> dict[str, str]:
    """The Authorization header for this backend's key (Bearer), or for an OpenAI-compatible
    server without one, basic auth from VQAKIT_API_BASIC_AUTH (`user:password`); none when
    neither is set."""
    key = api_key(backend, required=required)
    if key:
        return {"Authorization": f"Bearer {key}"}
    basic = os.environ.get(BASIC_AUTH_VARIABLE, "").strip() if backend == "openai-compatible" else ""
    if basic:
        if ":" not in basic:
            raise ValueError(f"{BASIC_AUTH_VARIABLE}: use user:password")
        return {"Authorization": f"Basic {base64.b64encode(basic.encode()).decode('ascii')}"}
    return {}


def base_url(spec: ModelSpec) -> str:
    """Where requests go: `openai:` to OPENAI_BASE_URL when set (as with OpenAI's SDK), else
    OpenAI's API; an OpenAI-compatible server to the spec's URL."""
    if spec.backend == "openai":
        return (os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
    return str(spec.base_url).rstrip("/")


async def _preflight(session: Any, spec: ModelSpec, timeout_s: float) -> str | None:
    """The server's model list names the model (a 1-token request where it has no list)."""
    from vqakit.models._preflight import check_model_list
    from vqakit.prompts import render_prompt

    headers = authorization(spec.backend, required=spec.backend == "openai")
    return await check_model_list(
        session, base_url(spec), spec.model, headers, timeout_s, render_prompt("preflight_ping")
    )


def _openai_unsupported(settings: GenerationSettings) -> list[str]:
    return ["thinking/thinking_budget (OpenAI takes reasoning_effort)"] if settings.thinks is not None else []


# registered in this order: `vqakit models` lists openai first
@register_backend(
    "openai-compatible",
    form="openai-compatible:<base_url>#<model>",
    example="openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?thinking=false&temperature=0.6",
    summary="any OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter); "
    "key from VQAKIT_API_KEY if the server needs one (or VQAKIT_API_BASIC_AUTH=user:password)",
    api=True,
    base_url=True,
    keys=("VQAKIT_API_KEY",),
    key_required=False,
    key_help=COMPATIBLE_KEY_HELP,
    video="clip",
    preflight=_preflight,
    model_names=r"^[\w.-]+/[\w.:-]+$|:",  # a hub id a server serves, an Ollama name:tag
)
@register_backend(
    "openai",
    form="openai:<model>",
    example="openai:o4-mini?reasoning_effort=high&max_tokens=8000",
    summary="OpenAI API; key from OPENAI_API_KEY",
    api=True,
    keys=("OPENAI_API_KEY",),
    unsupported=_openai_unsupported,
    preflight=_preflight,
    model_names=r"^(gpt-|chatgpt|o\d+($|-)|text-embedding-|ft:gpt)",
)
class OpenAIBackend:
    """One chat-completions endpoint over a lean HTTP client (`_http`).

    The wire format is OpenAI's `/chat/completions`. The official SDK was measured here at 0.72
    of the ideal request rate at concurrency 64 (benchmarks/model_throughput.py): its
    per-request payload transform and response modelling cost more CPU than two cores have.
    The body is put together as bytes (`openai_body`). Retries live in `Model`, so this class
    only classifies failures.
    """

    def __init__(self, spec: ModelSpec, *, request_timeout_s: float, image_max_side: int | None) -> None:
        """Requests go to `base_url(spec)`."""
        self.official = spec.backend == "openai"
        auth = authorization(spec.backend, required=self.official)
        self.url = f"{base_url(spec)}/chat/completions"
        self.spec = spec
        self.image_max_side = image_max_side
        self.request_timeout_s = request_timeout_s
        self._headers = {"Content-Type": "application/json", **auth}  # what batch uploads send too
        self._http: Any = None  # `_http.HttpClient`, made when the first request is sent

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()

    def wire_settings(self, settings: GenerationSettings) -> dict[str, Any]:
        """The request fields for these settings, under this endpoint's names."""
        body: dict[str, Any] = {
            key: value
            for key, value in settings.given().items()
            if key in ("temperature", "top_p", "seed", "reasoning_effort")
        }
        if settings.stop:
            body["stop"] = list(settings.stop)
        if settings.max_tokens is not None:
            body["max_completion_tokens" if self.official else "max_tokens"] = settings.max_tokens
        if not self.official and settings.thinks is not None:
            template = {"enable_thinking": settings.thinks}
            if settings.thinking_budget:
                template["thinking_budget"] = settings.thinking_budget
            body["chat_template_kwargs"] = template
        return body

    def prepare(self, messages: list[Message], settings: GenerationSettings, sample_id: str | None) -> bytes:
        return openai_body(self.spec.model, messages, self.image_max_side, self.wire_settings(settings))

    async def send(self, request: bytes) -> Completion:
        from vqakit.models._http import HttpClient, HttpFailure  # a run answered from the cache sends none

        if self._http is None:
            self._http = HttpClient({k: v for k, v in self._headers.items() if k != "Content-Type"})
        try:
            reply = await self._http.post(self.url, request, timeout_s=self.request_timeout_s)
        except TimeoutError:
            raise BackendError(
                "timeout", f"no reply within {self.request_timeout_s:g}s", retryable=True
            ) from None
        except HttpFailure as error:
            raise BackendError("connection", str(error), retryable=True) from None
        raw = reply.body
        if reply.status != 200:
            raise classify_status(
                reply.status, _error_text(raw), reply.headers.get("retry-after"), url=self.url
            )
        try:
            return completion_from_reply(json.loads(raw), str(self.spec))
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
            raise BackendError(
                "malformed", f"unreadable reply ({error!r}): {raw[:200]!r}", retryable=True
            ) from None


def completion_from_reply(reply: dict[str, Any], model: str) -> Completion:
    """A chat-completions reply body as a Completion (also the body of a batch output line);
    KeyError, IndexError or TypeError when it is not one."""
    choice = reply["choices"][0]
    message = choice["message"]
    text = message.get("content")
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if not isinstance(reasoning, str):
        text, reasoning = split_think_tags(text) if isinstance(text, str) else (text, None)
    return Completion(
        text=text,
        model=model,
        reasoning=reasoning,
        usage=_usage(reply.get("usage")),
        finish_reason="refused" if message.get("refusal") else choice.get("finish_reason"),
    )


def _usage(usage: Any) -> Usage:
    if not isinstance(usage, dict):
        return Usage()
    details = usage.get("completion_tokens_details") or {}
    return Usage(
        usage.get("prompt_tokens") or 0,
        usage.get("completion_tokens") or 0,
        (details.get("reasoning_tokens") if isinstance(details, dict) else None) or 0,
    )


def _error_text(raw: bytes) -> str:
    try:
        payload = json.loads(raw)
        message = payload.get("error", {}).get("message") if isinstance(payload, dict) else None
    except ValueError:
        message = None
    text = message or raw.decode("utf-8", "replace")
    return text if len(text) < 500 else text[:500] + "..."
