"""`Model`: one spec string, bounded concurrency, retries, time limits, cache and fallback.

Calls never raise for model or network failures: a `Completion` comes back with `error` set
(type and message) once retries are spent, so a run records why a sample has no answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import Any, Protocol

from vqakit.models._cache import ResponseCache, cache_key
from vqakit.models._messages import CallError, Completion, Message
from vqakit.models._retry import BackendError, RetryPolicy
from vqakit.models._spec import ModelSpec, parse_model_spec

log = logging.getLogger(__name__)

DEFAULT_PARAMS: dict[str, Any] = {"temperature": 0.0, "max_tokens": 1024}


class Backend(Protocol):
    """A model endpoint. `prepare` does the CPU work (encoding images, building the payload)
    outside the concurrency gate so that it overlaps with requests in flight; `send` is the
    network (or compute) part and may raise `BackendError`."""

    def prepare(self, messages: list[Message], params: dict[str, Any], sample_id: str | None) -> Any: ...

    async def send(self, request: Any) -> Completion: ...


def make_backend(
    spec: ModelSpec, *, request_timeout_s: float, image_max_side: int | None, options: dict[str, Any]
) -> Backend:
    if spec.backend in ("openai", "openai-compatible"):
        from vqakit.models._openai import OpenAIBackend

        return OpenAIBackend(spec, request_timeout_s=request_timeout_s, image_max_side=image_max_side)
    if spec.backend == "anthropic":
        from vqakit.models._anthropic import AnthropicBackend

        return AnthropicBackend(
            spec, request_timeout_s=request_timeout_s, image_max_side=image_max_side, **options
        )
    if spec.backend == "gemini":
        from vqakit.models._gemini import GeminiBackend

        return GeminiBackend(
            spec, request_timeout_s=request_timeout_s, image_max_side=image_max_side, **options
        )
    if spec.backend == "hf":
        from vqakit.models._hf import HFBackend

        return HFBackend(spec, **options)
    if spec.backend == "replay":
        from vqakit.models._replay import ReplayBackend

        return ReplayBackend(spec)
    raise ValueError(f"no backend for {spec.backend!r}")


class Model:
    def __init__(
        self,
        spec: str,
        *,
        concurrency: int = 8,
        cache: ResponseCache | bool = True,
        retry: RetryPolicy | None = None,
        request_timeout_s: float = 120.0,
        total_timeout_s: float | None = 600.0,
        max_images: int | None = None,
        image_max_side: int | None = 768,
        fallback: Model | None = None,
        params: dict[str, Any] | None = None,
        backend_options: dict[str, Any] | None = None,
    ) -> None:
        """`backend_options` go to the backend: for `hf:`, device ("cpu", "cuda:0"), dtype
        ("auto", "bfloat16", ...) and batch_size."""
        self.spec = parse_model_spec(spec)
        self.backend = make_backend(
            self.spec,
            request_timeout_s=request_timeout_s,
            image_max_side=image_max_side,
            options=backend_options or {},
        )
        self.concurrency = concurrency
        # on by default (deterministic requests only); False turns it off
        self.cache: ResponseCache | None = ResponseCache() if cache is True else (cache or None)
        self.retry = retry or RetryPolicy()
        self.total_timeout_s = total_timeout_s
        self.max_images = max_images
        self.image_max_side = image_max_side
        self.fallback = fallback
        self.params = {**DEFAULT_PARAMS, **(params or {})}
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sync_loop: asyncio.AbstractEventLoop | None = None

    def __str__(self) -> str:
        return str(self.spec)

    def _gates(self) -> tuple[asyncio.Semaphore, asyncio.Semaphore]:
        """(staging, sending): at most 2 x concurrency prepared payloads are held in memory,
        at most `concurrency` are in flight."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._staging = asyncio.Semaphore(2 * self.concurrency)
            self._semaphore, self._loop = asyncio.Semaphore(self.concurrency), loop
        return self._staging, self._semaphore

    def _deterministic(self, params: dict[str, Any]) -> bool:
        return params.get("temperature") == 0 or params.get("seed") is not None

    async def complete(
        self, messages: list[Message], *, sample_id: str | None = None, **params: Any
    ) -> Completion:
        """Send messages; always returns a Completion (with `error` set on final failure)."""
        merged = {**self.params, **params}
        images = sum(m.image_count() for m in messages)
        if self.max_images is not None and images > self.max_images:
            return Completion(
                None,
                str(self),
                error=CallError(
                    "too_many_images", f"{images} images exceed this model's limit of {self.max_images}"
                ),
            )
        key = None
        if self.cache is not None and self._deterministic(merged) and self.spec.backend != "replay":
            key = cache_key(str(self), {**merged, "image_max_side": self.image_max_side}, messages)
            if (hit := self.cache.get(key)) is not None:
                return hit
        completion = await self._with_retries(messages, merged, sample_id)
        if completion.error is None and _refused_or_empty(completion):
            kind = "refused" if completion.finish_reason in ("refused", "content_filter") else "empty"
            completion = replace(completion, error=CallError(kind, f"{self} gave no usable reply ({kind})"))
        if completion.error is not None and completion.error.type in ("refused", "empty") and self.fallback:
            log.info("%s: %s; asking fallback %s", sample_id, completion.error.type, self.fallback)
            return await self.fallback.complete(messages, sample_id=sample_id, **params)
        if key is not None and self.cache is not None:
            self.cache.put(key, str(self), completion)
        return completion

    async def _with_retries(
        self, messages: list[Message], params: dict[str, Any], sample_id: str | None
    ) -> Completion:
        staging, sending = self._gates()
        async with staging:
            if any(m.image_count() for m in messages):
                # image encoding runs in a worker thread (Pillow releases the GIL) so that the
                # event loop keeps reading replies meanwhile
                request = await asyncio.to_thread(self.backend.prepare, messages, params, sample_id)
            else:
                request = self.backend.prepare(messages, params, sample_id)
            return await self._send_with_retries(request, sending)

    async def _send_with_retries(self, request: Any, sending: asyncio.Semaphore) -> Completion:
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            try:
                async with sending:
                    call_started = time.monotonic()
                    completion = await self.backend.send(request)
                return replace(completion, latency_s=time.monotonic() - call_started, attempts=attempt)
            except BackendError as error:
                spent = time.monotonic() - started
                wait = self.retry.wait_s(attempt, error)
                out_of_time = self.total_timeout_s is not None and spent + wait > self.total_timeout_s
                if not error.retryable or attempt >= self.retry.max_attempts or out_of_time:
                    why = "" if error.retryable is False else f" after {attempt} attempt(s)"
                    return Completion(
                        None,
                        str(self),
                        error=CallError(error.kind, error.message + why),
                        attempts=attempt,
                        latency_s=spent,
                    )
                log.debug("%s: %s (%s); retry %d in %.2fs", self, error.kind, error.message, attempt, wait)
                await asyncio.sleep(wait)

    async def aclose(self) -> None:
        """Close open connections (of this model and its fallback)."""
        close = getattr(self.backend, "close", None)
        if close is not None:
            await close()
        if self.fallback is not None:
            await self.fallback.aclose()

    def close(self) -> None:
        """Close connections opened by `complete_sync` calls, and their private event loop."""
        if self._sync_loop is not None and not self._sync_loop.is_closed():
            self._sync_loop.run_until_complete(self.aclose())
            self._sync_loop.close()

    def complete_sync(
        self, messages: list[Message], *, sample_id: str | None = None, **params: Any
    ) -> Completion:
        """Blocking call for scripts; reuses one private event loop so connections are kept."""
        if self._sync_loop is None or self._sync_loop.is_closed():
            self._sync_loop = asyncio.new_event_loop()
        return self._sync_loop.run_until_complete(self.complete(messages, sample_id=sample_id, **params))


def _refused_or_empty(completion: Completion) -> bool:
    return completion.finish_reason in ("refused", "content_filter") or not (completion.text or "").strip()
