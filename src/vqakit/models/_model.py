"""`Model`: one spec string, bounded concurrency, retries, time limits, cache and fallback.

Calls never raise for model or network failures: a `Completion` comes back with `error` set
(type and message) once retries are spent, so a run records why a sample has no answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any, Protocol

from vqakit.models._backends import backend_info
from vqakit.models._cache import ResponseCache, cache_key
from vqakit.models._events import RetryEvent, tell
from vqakit.models._images import image_encoding, shrunk_size, wire_ready
from vqakit.models._limits import REQUEST_TIMEOUT_S, TOTAL_TIMEOUT_S, TimeLimits
from vqakit.models._messages import CallError, Completion, Frames, Image, Message, Video
from vqakit.models._retry import BackendError, RetryPolicy, current_breaker
from vqakit.models._secrets import redact_secrets
from vqakit.models._settings import GenerationSettings, as_settings, check_supported
from vqakit.models._spec import ModelSpec, parse_model_spec

log = logging.getLogger(__name__)

TRUNCATED = ("length", "max_tokens")  # finish reasons of a reply cut at the token limit
REFUSED = ("refused", "content_filter")

ReplyCheck = Callable[[Completion], "str | None"]
"""What a caller checks a reply with before it counts (a judge's verdict, a step's JSON):
None when the reply is usable, else why not. Only replies that pass are cached or served."""


def passes(completion: Completion, check: ReplyCheck | None) -> bool:
    """Whether a reply may be cached or served from the cache: no error, and the caller's check
    (if any) finds nothing wrong with it."""
    return completion.error is None and (check is None or check(completion) is None)


class Backend(Protocol):
    """A model endpoint, made by its registered factory (`register_backend`) as
    `factory(spec, request_timeout_s=..., image_max_side=..., **backend_options)`. `prepare` does
    the CPU work (encoding images, building the payload) outside the concurrency gate so that it
    overlaps with requests in flight; `send` is the network (or compute) part and may raise
    `BackendError`. An optional `async close()` closes its connections; an `image_max_side`
    attribute says it encodes images at that size (`Model.image_encoding`)."""

    def prepare(
        self, messages: list[Message], settings: GenerationSettings, sample_id: str | None
    ) -> Any: ...

    async def send(self, request: Any) -> Completion: ...


def make_backend(
    spec: ModelSpec, *, request_timeout_s: float, image_max_side: int | None, options: dict[str, Any]
) -> Backend:
    """The registered backend of `spec.backend`, made by its factory (`register_backend`); heavy
    SDKs are imported by the factory, so only the backend in use loads them."""
    factory = backend_info(spec.backend).factory
    return factory(spec, request_timeout_s=request_timeout_s, image_max_side=image_max_side, **options)


def sent_encoding(spec: str | None, image_max_side: int | None = 768) -> dict[str, Any] | None:
    """How a model of this spec is sent images (`image_encoding`), without making the model: None
    for backends that take pixels (local models, replay) and for no model."""
    if spec is None or not backend_info(parse_model_spec(spec).backend).api:
        return None
    return image_encoding(image_max_side)


class Model:
    def __init__(
        self,
        spec: str,
        *,
        concurrency: int = 8,
        cache: ResponseCache | bool = True,
        retry: RetryPolicy | None = None,
        request_timeout_s: float = REQUEST_TIMEOUT_S,
        total_timeout_s: float | None = TOTAL_TIMEOUT_S,
        max_images: int | None = None,
        image_max_side: int | None = 768,
        fallback: Model | None = None,
        settings: GenerationSettings | dict[str, Any] | None = None,
        params: dict[str, Any] | None = None,
        backend_options: dict[str, Any] | None = None,
    ) -> None:
        """`settings` (a `GenerationSettings` or a dict of its fields) win over the spec's
        `?key=value` settings, key by key; `params` is an older name for the same. ValueError
        names unknown keys, bad values and settings the backend cannot send.
        `backend_options` go to the backend: for `hf:`, device ("cpu", "cuda:0"), dtype
        ("auto", "bfloat16", ...) and batch_size. Time limits in the spec (`?timeout=`,
        `?total_timeout=`) win over `request_timeout_s` and `total_timeout_s`."""
        parsed = parse_model_spec(spec)
        request_timeout_s = parsed.limits.request_s or request_timeout_s
        total_timeout_s = parsed.limits.total_s or total_timeout_s
        merged = parsed.settings.merged(as_settings(params)).merged(as_settings(settings))
        check_supported(parsed.backend, merged)
        self.spec: ModelSpec = replace(parsed, settings=merged)  # str(model): every setting in it
        self.info = backend_info(parsed.backend)
        self.backend = make_backend(
            self.spec,
            request_timeout_s=request_timeout_s,
            image_max_side=image_max_side,
            options=backend_options or {},
        )
        self.request_timeout_s = request_timeout_s
        # what a circuit breaker counts requests by: the URL requests go to, where there is one
        self.endpoint: str = getattr(self.backend, "url", None) or f"{parsed.backend}:{parsed.model}"
        self.concurrency = concurrency
        # on by default (deterministic requests only); False turns it off
        self.cache: ResponseCache | None = ResponseCache() if cache is True else (cache or None)
        self.retry = retry or RetryPolicy()
        self.total_timeout_s = total_timeout_s
        self.max_images = max_images
        self.image_max_side = image_max_side
        self.fallback = fallback
        self._cache_spec = str(replace(self.spec, settings=GenerationSettings(), limits=TimeLimits()))
        self._semaphore: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sync_loop: asyncio.AbstractEventLoop | None = None

    @property
    def image_encoding(self) -> dict[str, Any] | None:
        """How this model's backend encodes images (`models.image_encoding`): None for backends
        that take pixels as they are (local models, replay)."""
        if not hasattr(self.backend, "image_max_side"):
            return None
        return image_encoding(self.backend.image_max_side)

    def sent_size(self, width: int, height: int) -> tuple[int, int]:
        """The size an image of `width` x `height` reaches the model at: backends that encode
        images themselves (the APIs) shrink them to `image_max_side`; local ones pass them whole."""
        return shrunk_size(width, height, getattr(self.backend, "image_max_side", None))

    def __str__(self) -> str:
        return str(self.spec)

    @property
    def settings(self) -> GenerationSettings:
        """This model's settings as given (spec, then `settings=`); see `with_defaults()`."""
        return self.spec.settings

    def _gates(self) -> tuple[asyncio.Semaphore, asyncio.Semaphore]:
        """(staging, sending): at most 2 x concurrency prepared payloads are held in memory,
        at most `concurrency` are in flight."""
        loop = asyncio.get_running_loop()
        if self._semaphore is None or self._loop is not loop:
            self._staging = asyncio.Semaphore(2 * self.concurrency)
            self._semaphore, self._loop = asyncio.Semaphore(self.concurrency), loop
        return self._staging, self._semaphore

    def _deterministic(self, settings: GenerationSettings) -> bool:
        return settings.temperature == 0 or settings.seed is not None

    def _error(self, kind: str, message: str, **fields: Any) -> Completion:
        return Completion(None, str(self), error=CallError(kind, redact_secrets(message)), **fields)

    async def complete(
        self,
        messages: list[Message],
        *,
        sample_id: str | None = None,
        check: ReplyCheck | None = None,
        **settings: Any,
    ) -> Completion:
        """Send messages; always returns a Completion (with `error` set on final failure).
        Keyword arguments are generation settings for this call (`max_tokens=8`), over the
        model's own; ValueError for unknown ones. `check` is the caller's validation of the
        reply: a reply it rejects is returned (the caller records why) but never cached, and a
        cached reply it rejects is not served, so a rerun asks the model again."""
        merged = self.settings
        if settings:
            merged = merged.merged(settings)
            check_supported(self.spec.backend, merged)
        effective = merged.with_defaults()
        sent = [Message.system(effective.system), *messages] if effective.system else messages
        images = sum(m.image_count() for m in messages)
        if self.max_images is not None and images > self.max_images:
            limit = f"{images} images exceed this model's limit of {self.max_images}"
            return self._error("too_many_images", limit)
        key = None
        if self.cache is not None and self._deterministic(effective) and self.info.cached:
            wire = {**effective.given(), "image_max_side": self.image_max_side}
            key = cache_key(self._cache_spec, wire, sent)
            if (hit := self.cache.get(key)) is not None and passes(hit, check):
                return hit
        try:
            sent = [await message.loaded() for message in sent]
        except Exception as error:  # the frames could not be had: no request is sent
            return self._error("video", f"{type(error).__name__}: {error}")
        completion = await self._with_retries(sent, effective, sample_id)
        if completion.error is not None and completion.error.type in ("refused", "empty") and self.fallback:
            log.info("%s: %s; asking fallback %s", sample_id, completion.error.type, self.fallback)
            return await self.fallback.complete(messages, sample_id=sample_id, check=check, **settings)
        if key is not None and self.cache is not None and passes(completion, check):
            self.cache.put(key, str(self), completion)
        return completion

    async def _with_retries(
        self, messages: list[Message], settings: GenerationSettings, sample_id: str | None
    ) -> Completion:
        staging, sending = self._gates()
        async with staging:
            if self._encodes(messages):
                # image encoding runs in a worker thread (Pillow releases the GIL) so that the
                # event loop keeps reading replies meanwhile
                request = await asyncio.to_thread(self.backend.prepare, messages, settings, sample_id)
            else:  # nothing to encode (text, or JPEGs as they are sent): cheaper than a thread hop
                request = self.backend.prepare(messages, settings, sample_id)
            # a local model or a replay gives the same reply to the same request: an empty one
            # is asked again only where the reply can differ
            retry_empty = self.info.api or not self._deterministic(settings)
            return await self._send_with_retries(request, sending, settings, retry_empty, sample_id)

    def _encodes(self, messages: list[Message]) -> bool:
        """Whether preparing these messages encodes images (or a video clip): anything but text
        and JPEGs the backend sends as they are."""
        if not any(m.image_count() or any(isinstance(p, Video) for p in m.parts) for m in messages):
            return False
        max_side = getattr(self.backend, "image_max_side", False)
        if max_side is False:  # a backend that takes pixels (a local model): its own work
            return True
        for message in messages:
            for part in message.parts:
                if isinstance(part, Video) or (
                    isinstance(part, Image) and not wire_ready(part.image, max_side)
                ):
                    return True
                if isinstance(part, Frames) and not all(wire_ready(i, max_side) for i in part.images):
                    return True
        return False

    def _unusable(self, completion: Completion, settings: GenerationSettings) -> CallError | None:
        """Why a reply that came back is no answer: cut at the token limit (its partial text
        is kept), refused, or empty."""
        if completion.finish_reason in TRUNCATED:
            limit = f"max_tokens={settings.max_tokens}" if settings.max_tokens else "the backend's limit"
            kind, message = "truncated", f"{self} stopped at the token limit ({limit}); the reply is partial"
        elif completion.finish_reason in REFUSED:
            kind, message = "refused", f"{self} gave no usable reply (refused)"
        elif not (completion.text or "").strip():
            kind, message = "empty", f"{self} gave no usable reply (empty)"
        else:
            return None
        return CallError(kind, redact_secrets(message))

    async def _send_with_retries(
        self,
        request: Any,
        sending: asyncio.Semaphore,
        settings: GenerationSettings,
        retry_empty: bool,
        sample_id: str | None = None,
    ) -> Completion:
        """Transient faults, and empty replies where asking again can help, are tried again with
        backoff until the attempts or the total time run out. Each retry is told to the retry
        listeners as it begins, and the call once it has settled (`_events`)."""
        retried: list[RetryEvent] = []
        completion = await self._attempts(request, sending, settings, retry_empty, retried, sample_id)
        if retried:
            last = retried[-1]
            tell(
                replace(
                    last, phase="settled", attempt=completion.attempts or last.attempt + 1, ok=completion.ok
                )
            )
        return completion

    async def _attempts(
        self,
        request: Any,
        sending: asyncio.Semaphore,
        settings: GenerationSettings,
        retry_empty: bool,
        retried: list[RetryEvent],
        sample_id: str | None,
    ) -> Completion:
        started = time.monotonic()
        attempt = 0
        breaker = current_breaker()
        while True:
            attempt += 1
            empty: Completion | None = None
            if breaker is not None and (down := breaker.down(self.endpoint)) is not None:
                return self._error(down.kind, f"not sent: {down}", attempts=attempt - 1)
            try:
                async with sending:
                    call_started = time.monotonic()
                    completion = await self.backend.send(request)
                if breaker is not None:
                    breaker.record(self.endpoint, None)
                completion = replace(completion, latency_s=time.monotonic() - call_started, attempts=attempt)
                problem = self._unusable(completion, settings)
                if problem is None or problem.type != "empty" or not retry_empty:
                    return completion if problem is None else replace(completion, error=problem)
                empty = completion
                raise BackendError("empty", problem.message, retryable=True)
            except BackendError as error:
                if breaker is not None:
                    breaker.record(self.endpoint, error)
                spent = time.monotonic() - started
                wait = self.retry.wait_s(attempt, error)
                out_of_time = self.total_timeout_s is not None and spent + wait > self.total_timeout_s
                if not error.retryable or attempt >= self.retry.max_attempts or out_of_time:
                    why = "" if error.retryable is False else f" after {attempt} attempt(s)"
                    if empty is not None:
                        return replace(empty, error=CallError("empty", redact_secrets(error.message + why)))
                    return self._error(error.kind, error.message + why, attempts=attempt, latency_s=spent)
                log.debug(
                    "%s: %s (%s); retry %d in %.2fs",
                    self,
                    error.kind,
                    redact_secrets(error.message),
                    attempt,
                    wait,
                )
                event = RetryEvent(
                    "begin",
                    str(self),
                    sample_id,
                    attempt,
                    self.retry.max_attempts,
                    error.kind,
                    redact_secrets(error.message),
                    wait,
                )
                retried.append(event)
                tell(event)
                await asyncio.sleep(wait)

    @contextmanager
    def batched_cache(self) -> Iterator[None]:
        """Cache this model's replies (and its fallback's) in batches within this scope
        (`ResponseCache.batched`): what a run does, where one commit a reply would cost more CPU
        than building its request."""
        with ExitStack() as scopes:
            model: Model | None = self
            while model is not None:
                if model.cache is not None:
                    scopes.enter_context(model.cache.batched())
                model = model.fallback
            yield

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
