"""Anthropic Messages API through the official SDK (`anthropic:<model>`, key ANTHROPIC_API_KEY).

Generation settings on the wire: `max_tokens` (required by the API: 4096 when unset, or the
thinking budget + 4096 with thinking), `thinking: {"type": "enabled", "budget_tokens": N}`
(4096 for `thinking=true` without a budget; `{"type": "disabled"}` for thinking off),
`output_config: {"effort": ...}` for reasoning_effort, `stop_sequences`, `system`. temperature
and top_p go only where this SDK version still takes them, and never with thinking on (the API
wants them unset then). Anthropic has no seed.
"""

from __future__ import annotations

import asyncio
import inspect
import os
from typing import Any

from vqakit.models._backends import register_backend
from vqakit.models._images import data_url
from vqakit.models._messages import Completion, Message, Text, Usage, as_timed_images
from vqakit.models._retry import BackendError, classify_status
from vqakit.models._secrets import api_key
from vqakit.models._settings import ANTHROPIC_MAX_TOKENS, ANTHROPIC_THINKING_BUDGET, GenerationSettings
from vqakit.models._spec import ModelSpec


def _image_block(image: Any, max_side: int | None) -> dict[str, Any]:
    encoded = data_url(image, max_side).split(",", 1)[1]
    return {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": encoded}}


def to_anthropic(messages: list[Message], max_side: int | None) -> tuple[str | None, list[dict[str, Any]]]:
    system = "\n".join(p.text for m in messages if m.role == "system" for p in m.parts if isinstance(p, Text))
    converted = []
    for message in messages:
        if message.role == "system":
            continue
        content: list[dict[str, Any]] = [
            {"type": "text", "text": part.text}
            if isinstance(part, Text)
            else _image_block(part.image, max_side)
            for part in as_timed_images(message.parts)
        ]
        converted.append({"role": message.role, "content": content})
    return system or None, converted


def _anthropic_unsupported(settings: GenerationSettings) -> list[str]:
    problems = []
    if settings.seed is not None:
        problems.append("seed (Anthropic has none)")
    if settings.reasoning_effort in ("none", "minimal"):
        problems.append(f"reasoning_effort={settings.reasoning_effort} (Anthropic: low..max)")
    return problems


async def _preflight(session: Any, spec: ModelSpec, timeout_s: float) -> str | None:
    """The API's record of the model (aliases resolve; 404 for a model it lacks)."""
    from urllib.parse import quote

    from vqakit.models._preflight import check_model_record

    root = (os.environ.get("ANTHROPIC_BASE_URL") or "https://api.anthropic.com").rstrip("/")
    headers = {"x-api-key": api_key("anthropic") or "", "anthropic-version": "2023-06-01"}
    url = f"{root}/v1/models/{quote(spec.model, safe='')}"
    return await check_model_record(session, url, headers, timeout_s)


@register_backend(
    "anthropic",
    form="anthropic:<model>",
    example="anthropic:claude-sonnet-4-5?thinking_budget=4000",
    summary="Anthropic API; key from ANTHROPIC_API_KEY",
    api=True,
    keys=("ANTHROPIC_API_KEY",),
    requires=("anthropic",),
    install="pip install 'vqakit[anthropic]'",
    unsupported=_anthropic_unsupported,
    preflight=_preflight,
    model_names=r"^claude",
)
class AnthropicBackend:
    def __init__(
        self,
        spec: ModelSpec,
        *,
        request_timeout_s: float,
        image_max_side: int | None,
        base_url: str | None = None,
    ) -> None:
        try:
            import anthropic  # noqa: F401
        except ImportError:
            raise ValueError("anthropic: pip install 'vqakit[anthropic]'") from None
        key = api_key("anthropic")
        self.spec = spec
        self.image_max_side = image_max_side
        self._settings = {
            "api_key": key,
            "base_url": base_url,
            "max_retries": 0,
            "timeout": request_timeout_s,
        }
        self._clients: dict[int, Any] = {}
        # sampling settings this SDK version still accepts (newer API versions dropped some)
        from anthropic.resources.messages import AsyncMessages

        self._accepted = set(inspect.signature(AsyncMessages.create).parameters)

    def _client(self) -> Any:
        from anthropic import AsyncAnthropic

        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:
            self._clients = {loop: AsyncAnthropic(**self._settings)}
        return self._clients[loop]

    def prepare(
        self, messages: list[Message], settings: GenerationSettings, sample_id: str | None
    ) -> dict[str, Any]:
        system, converted = to_anthropic(messages, self.image_max_side)
        request: dict[str, Any] = {"model": self.spec.model, "messages": converted}
        thinks = settings.thinks
        budget = (settings.thinking_budget or ANTHROPIC_THINKING_BUDGET) if thinks else 0
        request["max_tokens"] = settings.max_tokens or budget + ANTHROPIC_MAX_TOKENS
        if thinks is not None:
            on = {"type": "enabled", "budget_tokens": budget}
            request["thinking"] = on if thinks else {"type": "disabled"}
        if system:
            request["system"] = system
        if settings.stop:
            request["stop_sequences"] = list(settings.stop)
        if not thinks:
            for key in ("temperature", "top_p"):
                if getattr(settings, key) is not None and key in self._accepted:
                    request[key] = getattr(settings, key)
        if settings.reasoning_effort is not None:
            effort = {"effort": settings.reasoning_effort}
            if "output_config" in self._accepted:
                request["output_config"] = effort
            else:  # an SDK older than the field: it goes in the body as is
                request["extra_body"] = {"output_config": effort}
        return request

    async def send(self, request: dict[str, Any]) -> Completion:
        import anthropic

        try:
            reply = await self._client().messages.create(**request)
        except anthropic.APITimeoutError as error:
            raise BackendError("timeout", str(error), retryable=True) from None
        except anthropic.APIConnectionError as error:
            raise BackendError("connection", str(error), retryable=True) from None
        except anthropic.APIStatusError as error:
            raise classify_status(
                error.status_code,
                str(error)[:500],
                error.response.headers.get("retry-after"),
                url=str(error.response.request.url),
            ) from None
        return completion_from_message(reply, str(self.spec))


def completion_from_message(reply: Any, model: str) -> Completion:
    """An SDK `Message` (a reply, or a succeeded batch result's message) as a Completion."""
    text = "".join(block.text for block in reply.content if block.type == "text")
    thinking = "".join(getattr(block, "thinking", "") for block in reply.content if block.type == "thinking")
    details = getattr(reply.usage, "output_tokens_details", None)
    return Completion(
        text=text,
        model=model,
        reasoning=thinking or None,
        usage=Usage(
            reply.usage.input_tokens,
            reply.usage.output_tokens,
            getattr(details, "thinking_tokens", None) or 0,
        ),
        finish_reason="refused" if reply.stop_reason == "refusal" else reply.stop_reason,
    )
