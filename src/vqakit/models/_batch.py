"""Model calls through a provider's batch API (half the price, replies within 24 hours), without
the caller (a judge) knowing.

`Batcher.wrap(model)` gives an object used like a `Model`. In a sweep over the samples, a call
whose reply is not known yet is queued instead of sent, and returns a completion with the error
kind `batch_pending`; `deferred_calls()` tells the caller (the runner) that what it got is not
final, so it writes nothing. `submit()` sends what was queued as one batch per model and records
it in the journal at once; `collect()` polls and stores the replies; the next sweep answers every
call from them. A caller with several steps (extract claims, then judge them) takes one round
per step; a process killed mid-batch polls the same batch when it starts again.

Submission is idempotent: the intent (a fresh id and the digest of the requests) is journaled
before the upload and the batch is tagged with it, so a process killed after the provider
accepted the batch but before its id was journaled finds that batch at the provider
(`BatchAPI.find`) instead of submitting the requests again; the same lookup runs before a
submission is retried after a lost reply.

Which backends batch: `openai:` and `anthropic:`. `openai-compatible:` only where the server has
the Files and Batches endpoints (some vLLM versions and hosted services do, most local servers
do not): the first upload tells, and on 404, 405 or 501 that model's calls are sent one by one
with a note. `gemini:`, `hf:` and `replay:` always send one by one.

Differences from direct calls, on purpose: identical requests share one reply (as with the
response cache), whatever the temperature; there are no retries inside a batch (a failed
request is that call's error, and a rerun asks again) and no fallback model.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any, Protocol, TypeVar

from vqakit.models._batch_journal import (
    BatchJournal,
    BatchStatus,
    BatchUnsupported,
    Intent,
    SubmittedBatch,
    failed,
)
from vqakit.models._cache import cache_key
from vqakit.models._messages import CallError, Completion, Message
from vqakit.models._model import Model, ReplyCheck, passes
from vqakit.models._retry import BackendError, RetryPolicy
from vqakit.models._settings import GenerationSettings, check_supported

log = logging.getLogger(__name__)
T = TypeVar("T")

PENDING = "batch_pending"  # the error kind of a call whose reply comes with a batch
_DEFERRED: ContextVar[list[str] | None] = ContextVar("vqakit_deferred_calls", default=None)


@contextmanager
def deferred_calls() -> Iterator[list[str]]:
    """Collects the keys of the calls a batching model deferred inside the block (tasks started
    inside it included): a caller that finds any knows its result is not final."""
    found: list[str] = []
    token = _DEFERRED.set(found)
    try:
        yield found
    finally:
        _DEFERRED.reset(token)


class BatchAPI(Protocol):
    """One provider's batch endpoints (see `_batch_openai`, `_batch_anthropic`)."""

    provider: str
    max_requests: int
    max_bytes: int

    async def submit(self, requests: dict[str, Any], intent: Intent) -> str:
        """Start a batch of these requests, tagged with the intent where the provider can; its id."""
        ...

    async def find(self, intent: Intent, known: Collection[str] = ()) -> str | None:
        """The id of the batch the provider made for this intent, None when it has none
        (`known`: batches journaled already, never the answer)."""
        ...

    async def status(self, batch_id: str) -> BatchStatus: ...

    async def results(self, batch_id: str, keys: tuple[str, ...]) -> dict[str, Completion]: ...

    async def close(self) -> None: ...


def batch_api(model: Model) -> BatchAPI | None:
    """The batch API of the model's backend, None where it has none."""
    if model.spec.backend in ("openai", "openai-compatible"):
        from vqakit.models._batch_openai import OpenAIBatchAPI

        return OpenAIBatchAPI(model.backend, probe=model.spec.backend == "openai-compatible")  # type: ignore[arg-type]
    if model.spec.backend == "anthropic":
        from vqakit.models._batch_anthropic import AnthropicBatchAPI

        return AnthropicBatchAPI(model.backend)  # type: ignore[arg-type]
    return None


class BatchingModel:
    """A `Model` whose calls are answered from batches (see the module). `api` None: its calls
    go straight to the model."""

    def __init__(self, model: Model, batcher: Batcher, api: BatchAPI | None) -> None:
        self.model, self.batcher, self.api = model, batcher, api
        self.group = str(replace(model.spec, settings=GenerationSettings()))  # as the cache keys it

    def __str__(self) -> str:
        return str(self.model)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    async def complete(
        self,
        messages: list[Message],
        *,
        sample_id: str | None = None,
        check: ReplyCheck | None = None,
        **settings: Any,
    ) -> Completion:
        """As `Model.complete`: a reply `check` rejects is neither cached nor served from the
        cache (it is still the answer of this batch; a rerun of the caller asks again)."""
        model = self.model
        if self.api is None:
            return await model.complete(messages, sample_id=sample_id, check=check, **settings)
        merged = model.settings
        if settings:
            merged = merged.merged(settings)
            check_supported(model.spec.backend, merged)
        effective = merged.with_defaults()
        sent = [Message.system(effective.system), *messages] if effective.system else messages
        images = sum(m.image_count() for m in messages)
        if model.max_images is not None and images > model.max_images:
            return await model.complete(messages, sample_id=sample_id, check=check, **settings)  # it says why
        key = cache_key(self.group, {**effective.given(), "image_max_side": model.image_max_side}, sent)
        keep = model.cache is not None and model._deterministic(effective)
        if (answer := self.batcher.journal.answer(key)) is not None:
            if answer.error is None and (problem := model._unusable(answer, effective)) is not None:
                return replace(answer, error=problem)
            if answer.error is None and not passes(answer, check) and key not in self.batcher.rejected:
                self.batcher.journal.reject(key)  # this process keeps it; a rerun asks again
                self.batcher.rejected.add(key)
            cacheable = keep and model.cache is not None and passes(answer, check)
            if cacheable and model.cache is not None and key not in self.batcher.cached:
                model.cache.put(key, str(model), answer)  # once: each later sweep answers it again
                self.batcher.cached.add(key)
            return answer
        if (
            keep
            and model.cache is not None
            and (hit := model.cache.get(key)) is not None
            and passes(hit, check)
        ):
            return hit
        if self.batcher.journal.in_flight(key) is None and not self.batcher.queued(self.group, key):
            if images:
                sent = [await message.loaded() for message in sent]
                request = await asyncio.to_thread(model.backend.prepare, sent, effective, sample_id)
            else:
                request = model.backend.prepare(sent, effective, sample_id)
            self.batcher.enqueue(self.group, key, request)
        if (deferred := _DEFERRED.get()) is not None:
            deferred.append(key)
        return Completion(None, str(model), error=CallError(PENDING, "the reply comes with a provider batch"))


class Batcher:
    """Queues the calls of the models it wraps, submits them as batches and collects the replies
    into `journal`. `on_note` hears what a user waiting on a batch wants to know."""

    def __init__(
        self,
        journal: BatchJournal,
        *,
        poll_s: float = 30.0,
        on_note: Callable[[str], None] | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.journal = journal
        self.poll_s = poll_s
        self.retry = retry or RetryPolicy(max_attempts=4)
        self._note = on_note or log.info
        self._wrapped: dict[str, list[BatchingModel]] = {}  # group -> its wrapped models
        self._queue: dict[str, dict[str, Any]] = {}  # group -> request key -> prepared request
        self._said: set[str] = set()
        self._apis: list[BatchAPI] = []  # to close
        self.cached: set[str] = set()  # keys whose reply went to the response cache
        self.rejected: set[str] = set()  # keys whose reply the caller's check rejected

    def wrap(self, model: Model) -> BatchingModel:
        group = str(replace(model.spec, settings=GenerationSettings()))
        known = self._wrapped.get(group)
        if known:
            api = known[0].api
        elif (api := batch_api(model)) is not None:
            self._apis.append(api)
        else:
            self._note(f"{model}: its backend has no batch API; its calls are sent one by one")
        wrapped = BatchingModel(model, self, api)
        self._wrapped.setdefault(group, []).append(wrapped)
        return wrapped

    def queued(self, group: str, key: str) -> bool:
        return key in self._queue.get(group, {})

    def enqueue(self, group: str, key: str, request: Any) -> None:
        self._queue.setdefault(group, {})[key] = request

    def _api(self, group: str) -> BatchAPI | None:
        wrapped = self._wrapped.get(group)
        return wrapped[0].api if wrapped else None

    def _say(self, text: str, once: str | None = None) -> None:
        if once is None or once not in self._said:
            self._said.add(once or text)
            self._note(text)

    async def _retrying(self, make: Callable[[], Awaitable[T]]) -> T:
        attempt = 0
        while True:
            attempt += 1
            try:
                return await make()
            except BackendError as error:
                if not error.retryable or attempt >= self.retry.max_attempts:
                    raise
                await asyncio.sleep(self.retry.wait_s(attempt, error))

    async def submit(self) -> int:
        """Send the queued requests, one batch per model (split at the provider's limits), each
        intent recorded before its upload and each batch as soon as it is accepted; how many
        batches were submitted. Intents an earlier process left without an answer are looked up
        at the provider first: a batch found there is polled, and its requests are not sent again."""
        queue, self._queue = self._queue, {}
        submitted = 0
        for group, requests in queue.items():
            api = self._api(group)
            if api is None:
                continue
            model = str(self._wrapped[group][0])
            requests = await self._resume(api, group, requests)
            for chunk in _chunks(requests, api.max_requests, api.max_bytes):
                intent = Intent.new(api.provider, group, chunk)
                self.journal.add_intent(intent)  # before anything is uploaded
                try:
                    batch_id = await self._create(api, chunk, intent)
                except BatchUnsupported as why:
                    self.journal.add_unsent(intent, str(why))
                    for wrapped in self._wrapped[group]:
                        wrapped.api = None
                    self._say(f"{why}; the calls of {model} are sent one by one")
                    break
                except BackendError as error:
                    why = f"the batch was not accepted ({error.kind}: {error.message})"
                    if not error.retryable:  # refused: no batch was made (else looked up next time)
                        self.journal.add_unsent(intent, why)
                    self.journal.add_results(None, {key: failed(model, error.kind, why) for key in chunk})
                    self._say(f"{model}: {why}; {len(chunk)} calls end in that error")
                    continue
                self.journal.add_submitted(
                    SubmittedBatch(batch_id, api.provider, group, tuple(chunk), intent.id)
                )
                self._say(f"submitted batch {batch_id} to {api.provider}: {len(chunk)} requests for {model}")
                submitted += 1
        return submitted

    async def _create(self, api: BatchAPI, chunk: dict[str, Any], intent: Intent) -> str:
        """Submit, retrying failures that may pass; before each retry the provider is asked for
        the intent's batch, in case only the reply was lost."""
        attempt = 0
        while True:
            attempt += 1
            try:
                return await api.submit(chunk, intent)
            except BackendError as error:
                if not error.retryable:
                    raise
                if attempt >= self.retry.max_attempts:
                    raise
                await asyncio.sleep(self.retry.wait_s(attempt, error))
                try:
                    found = await api.find(intent, set(self.journal.submitted))
                except BackendError:
                    found = None  # no way to tell: submitting again is all that is left
                if found is not None:
                    return found

    async def _resume(self, api: BatchAPI, group: str, requests: dict[str, Any]) -> dict[str, Any]:
        """Settle the intents of this group that have no outcome in the journal (the process
        that recorded them stopped before it learnt one): a batch found at the provider is
        journaled as submitted, the others as unsent. The requests not in a batch now."""
        for intent in self.journal.pending_intents(group):
            try:
                found = await self._retrying(
                    lambda intent=intent: api.find(intent, set(self.journal.submitted))
                )
            except BackendError as error:
                why = f"could not be looked up at {api.provider} ({error.kind}: {error.message})"
                self.journal.add_unsent(intent, why)
                self._say(f"batch intent {intent.id} {why}; its requests are submitted again")
                continue
            if found is None:
                self.journal.add_unsent(intent, f"no batch at {api.provider} has it")
                continue
            self.journal.add_submitted(
                SubmittedBatch(found, api.provider, group, intent.keys, intent.id), found=True
            )
            self._say(
                f"batch {found} was accepted by {api.provider} before the last process recorded it: "
                f"polling it instead of submitting its {len(intent.keys)} requests again"
            )
        return {key: request for key, request in requests.items() if self.journal.in_flight(key) is None}

    def outstanding(self) -> list[SubmittedBatch]:
        """Batches not ended that a wrapped model can poll."""
        found = []
        for batch in self.journal.outstanding():
            if self._api(batch.group) is None:
                self._say(
                    f"batch {batch.id} ({batch.group}) is not polled: no judge of this run uses that model",
                    batch.id,
                )
            else:
                found.append(batch)
        return found

    async def collect(self, *, wait: bool) -> int:
        """Poll the outstanding batches once (or, with `wait`, until every one has ended) and
        store the replies of those that ended; how many ended."""
        ended = 0
        while True:
            for batch in self.outstanding():
                ended += await self._poll(batch)
            if not wait or not self.outstanding():
                return ended
            await asyncio.sleep(self.poll_s)

    async def _poll(self, batch: SubmittedBatch) -> int:
        api = self._api(batch.group)
        assert api is not None
        model = str(self._wrapped[batch.group][0])
        try:
            status = await api.status(batch.id)
            if not status.ended:
                done = f", {status.done}/{status.total} done" if status.total else ""
                self._say(f"batch {batch.id}: {status.status}{done}", f"{batch.id}:{status.status}")
                return 0
            results = await api.results(batch.id, batch.keys)
            word = status.status
        except BackendError as error:
            if error.retryable:
                self._say(
                    f"batch {batch.id}: polling failed ({error.kind}: {error.message}); trying again later"
                )
                return 0
            word = f"lost ({error.kind})"
            why = f"batch {batch.id} could not be read: {error.message}"
            results = {key: failed(model, error.kind, why) for key in batch.keys}
        self.journal.add_results(batch.id, results, word)
        errors = sum(1 for completion in results.values() if completion.error is not None)
        self._say(f"batch {batch.id}: {word}, {len(results) - errors} replies, {errors} errors")
        return 1

    async def aclose(self) -> None:
        for api in self._apis:
            await api.close()


def _chunks(requests: dict[str, Any], max_requests: int, max_bytes: int) -> Iterator[dict[str, Any]]:
    """The requests in pieces a provider takes as one batch."""
    chunk: dict[str, Any] = {}
    size = 0
    for key, request in requests.items():
        length = len(request) if isinstance(request, bytes) else len(json.dumps(request, default=str))
        if chunk and (len(chunk) >= max_requests or size + length > max_bytes):
            yield chunk
            chunk, size = {}, 0
        chunk[key] = request
        size += length
    if chunk:
        yield chunk
