"""OpenAI and OpenAI-compatible chat completions (vLLM, SGLang, Ollama, llama.cpp, ...)."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from vqakit.models._images import data_url
from vqakit.models._messages import Completion, Message, Text, Usage, as_timed_images
from vqakit.models._retry import BackendError, classify_status
from vqakit.models._spec import ModelSpec


def to_openai_messages(messages: list[Message], image_max_side: int | None) -> list[dict[str, Any]]:
    converted = []
    for message in messages:
        if all(isinstance(p, Text) for p in message.parts):
            converted.append({"role": message.role, "content": "\n".join(p.text for p in message.parts)})
            continue
        content: list[dict[str, Any]] = [
            {"type": "text", "text": part.text}
            if isinstance(part, Text)
            else {"type": "image_url", "image_url": {"url": data_url(part.image, image_max_side)}}
            for part in as_timed_images(message.parts)
        ]
        converted.append({"role": message.role, "content": content})
    return converted


class OpenAIBackend:
    """One chat-completions endpoint over a lean aiohttp client.

    The wire format is OpenAI's `/chat/completions`. The official SDK was measured here at 0.72
    of the ideal request rate at concurrency 64 (benchmarks/model_throughput.py): its
    per-request payload transform and response modelling cost more CPU than two cores have.
    Retries live in `Model`, so this class only classifies failures.
    """

    def __init__(self, spec: ModelSpec, *, request_timeout_s: float, image_max_side: int | None) -> None:
        if spec.backend == "openai":
            key = os.environ.get("OPENAI_API_KEY")
            if not key:
                raise ValueError("openai: set OPENAI_API_KEY in the environment")
            self.url = "https://api.openai.com/v1/chat/completions"
        else:
            key = os.environ.get("VQAKIT_API_KEY")
            self.url = f"{spec.base_url}/chat/completions"
        self.spec = spec
        self.image_max_side = image_max_side
        self.request_timeout_s = request_timeout_s
        self._headers = {
            "Content-Type": "application/json",
            **({"Authorization": f"Bearer {key}"} if key else {}),
        }
        self._sessions: dict[int, Any] = {}  # one session per event loop: connection pools are loop-bound

    def _session(self) -> Any:
        import aiohttp

        loop = id(asyncio.get_running_loop())
        if loop not in self._sessions:
            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._sessions = {loop: aiohttp.ClientSession(connector=connector, headers=self._headers)}
        return self._sessions[loop]

    async def close(self) -> None:
        for session in self._sessions.values():
            await session.close()
        self._sessions = {}

    def prepare(self, messages: list[Message], params: dict[str, Any], sample_id: str | None) -> bytes:
        body = {
            "model": self.spec.model,
            "messages": to_openai_messages(messages, self.image_max_side),
            **params,
        }
        return json.dumps(body).encode()

    async def send(self, request: bytes) -> Completion:
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=self.request_timeout_s)
        try:
            async with self._session().post(self.url, data=request, timeout=timeout) as response:
                raw = await response.read()
                if response.status != 200:
                    raise classify_status(
                        response.status, _error_text(raw), response.headers.get("Retry-After")
                    )
        except TimeoutError:
            raise BackendError(
                "timeout", f"no reply within {self.request_timeout_s:g}s", retryable=True
            ) from None
        except aiohttp.ClientError as error:
            raise BackendError("connection", f"{type(error).__name__}: {error}", retryable=True) from None
        try:
            reply = json.loads(raw)
            choice = reply["choices"][0]
            message = choice["message"]
        except (ValueError, KeyError, IndexError, TypeError) as error:
            raise BackendError(
                "malformed", f"unreadable reply ({error!r}): {raw[:200]!r}", retryable=True
            ) from None
        usage = reply.get("usage") or {}
        reasoning = message.get("reasoning_content") or message.get("reasoning")
        return Completion(
            text=message.get("content"),
            model=str(self.spec),
            reasoning=reasoning if isinstance(reasoning, str) else None,
            usage=Usage(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0),
            finish_reason="refused" if message.get("refusal") else choice.get("finish_reason"),
        )


def _error_text(raw: bytes) -> str:
    try:
        payload = json.loads(raw)
        message = payload.get("error", {}).get("message") if isinstance(payload, dict) else None
    except ValueError:
        message = None
    text = message or raw.decode("utf-8", "replace")
    return text if len(text) < 500 else text[:500] + "..."
