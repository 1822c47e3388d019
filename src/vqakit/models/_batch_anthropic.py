"""Anthropic's Message Batches API, through the official SDK (as the `anthropic:` backend).

Wire shapes (Anthropic API reference, Message Batches):
- `POST /v1/messages/batches {"requests": [{"custom_id", "params": <a Messages request>}]}`
  (custom ids unique in a batch, at most 64 characters of `[A-Za-z0-9_-]`; at most 100,000
  requests and 256 MB per batch);
- `GET /v1/messages/batches/{id}`: `processing_status` in_progress, canceling or ended;
  `request_counts {processing, succeeded, errored, canceled, expired}`; `results_url` once ended;
- the results (`GET results_url`, which the SDK's `batches.results` follows): JSONL lines
  `{"custom_id", "result": {"type": "succeeded", "message": <a Message>} | {"type": "errored",
  "error": {"type": "error", "error": {"type", "message"}}} | {"type": "canceled"} |
  {"type": "expired"}}`, in no particular order;
- `GET /v1/messages/batches?limit=&after_id=`: `{"data", "has_more", "last_id"}`, newest first.

Finding the batch of an intent (`find`): a message batch has no metadata, and its custom ids can
only be read from its results, once it has ended. The custom ids are the requests' keys (digests
of model, settings and messages), so a batch whose custom ids are exactly the intent's keys
answers exactly its requests, whoever submitted it. The candidates are the batches created from
`SKEW_S` before the intent was recorded to `LATE_S` after, with as many requests as the intent:
an ended one is taken when its custom ids are the intent's keys; else the one still running
created closest to the intent is taken unverified (should it be another's, its results lack
these keys, each becomes a `batch_missing` error, and a rerun asks for them again).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Collection
from typing import Any, TypeVar

from vqakit.models._anthropic import AnthropicBackend, completion_from_message
from vqakit.models._batch_journal import BatchStatus, Intent, failed
from vqakit.models._messages import Completion
from vqakit.models._retry import BackendError, classify_status

T = TypeVar("T")

PAGE = 100  # batches per page of the list
MAX_PAGES = 20  # a lookup reads at most this many pages
SKEW_S = 600.0  # a batch created this long before its intent was recorded may still be its
LATE_S = 3600.0  # ... or this long after (a large batch's upload takes a while)

# the API's error types, as the kinds vqakit records for a failed call
_KINDS = {
    "invalid_request_error": "bad_request",
    "not_found_error": "bad_request",
    "request_too_large": "bad_request",
    "authentication_error": "auth",
    "permission_error": "auth",
    "billing_error": "auth",
    "rate_limit_error": "rate_limit",
    "api_error": "server",
    "overloaded_error": "server",
    "timeout_error": "timeout",
}


class AnthropicBatchAPI:
    provider = "anthropic"
    max_requests = 100_000
    max_bytes = 240 * 2**20  # under the 256 MB limit

    def __init__(self, backend: AnthropicBackend) -> None:
        self.model = str(backend.spec)
        # the backend's client settings (key, base URL, timeout), with the SDK's own retries on
        # for these few management calls
        self._settings = {**backend._settings, "max_retries": 2}
        self._clients: dict[int, Any] = {}

    def _client(self) -> Any:
        from anthropic import AsyncAnthropic

        loop = id(asyncio.get_running_loop())
        if loop not in self._clients:
            self._clients = {loop: AsyncAnthropic(**self._settings)}
        return self._clients[loop]

    async def close(self) -> None:
        for client in self._clients.values():
            await client.close()
        self._clients = {}

    async def _call(self, call: Awaitable[T]) -> T:
        import anthropic

        try:
            return await call
        except anthropic.APITimeoutError as error:
            raise BackendError("timeout", str(error), retryable=True) from None
        except anthropic.APIConnectionError as error:
            raise BackendError("connection", str(error), retryable=True) from None
        except anthropic.APIStatusError as error:
            retry_after = error.response.headers.get("retry-after")
            raise classify_status(error.status_code, str(error)[:500], retry_after) from None

    async def submit(self, requests: dict[str, dict[str, Any]], intent: Intent) -> str:
        """Start a batch of prepared Messages requests (by custom id); its id. A message batch
        takes no tag: `find` knows it by its custom ids."""
        batch = await self._call(
            self._client().messages.batches.create(
                requests=[{"custom_id": key, "params": _params(request)} for key, request in requests.items()]
            )
        )
        return str(batch.id)

    async def find(self, intent: Intent, known: Collection[str] = ()) -> str | None:
        """The batch of this intent's requests, found as the module says (never one of `known`)."""
        wanted = set(intent.keys)
        candidates: list[Any] = []
        after: str | None = None
        for _ in range(MAX_PAGES):
            options = {"limit": PAGE, **({"after_id": after} if after else {})}
            page = await self._call(self._client().messages.batches.list(**options))
            for batch in page.data:
                created = batch.created_at.timestamp()
                in_window = intent.at - SKEW_S <= created <= intent.at + LATE_S
                if in_window and _total(batch) == len(wanted) and batch.id not in known:
                    candidates.append(batch)
            if (
                not page.data
                or not page.has_more
                or page.data[-1].created_at.timestamp() < intent.at - SKEW_S
            ):
                break
            after = page.last_id or page.data[-1].id
        candidates.sort(key=lambda batch: abs(batch.created_at.timestamp() - intent.at))
        running = [batch.id for batch in candidates if batch.processing_status != "ended"]
        for batch in candidates:
            readable = batch.processing_status == "ended" and batch.archived_at is None
            if readable and await self._custom_ids(batch.id) == wanted:
                return str(batch.id)
        return str(running[0]) if running else None

    async def _custom_ids(self, batch_id: str) -> set[str]:
        lines = await self._call(self._client().messages.batches.results(batch_id))
        return {item.custom_id async for item in lines}

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._call(self._client().messages.batches.retrieve(batch_id))
        total = _total(batch)
        return BatchStatus(
            batch.processing_status == "ended",
            batch.processing_status,
            total - batch.request_counts.processing,
            total,
        )

    async def results(self, batch_id: str, keys: tuple[str, ...]) -> dict[str, Completion]:
        """Every request's completion: a reply, or an error of the request's own kind."""
        found: dict[str, Completion] = {}
        lines = await self._call(self._client().messages.batches.results(batch_id))
        async for item in lines:
            found[item.custom_id] = self._completion(item.result)
        missing = f"no reply in batch {batch_id}"
        return {key: found.get(key) or failed(self.model, "batch_missing", missing) for key in keys}

    def _completion(self, result: Any) -> Completion:
        if result.type == "succeeded":
            return completion_from_message(result.message, self.model)
        if result.type == "errored":
            error = getattr(result.error, "error", None)
            kind = str(getattr(error, "type", "") or "batch_error")
            return failed(self.model, _KINDS.get(kind, kind), str(getattr(error, "message", "") or kind))
        kind = "cancelled" if result.type == "canceled" else str(result.type)
        return failed(self.model, kind, f"the request was {result.type} before it ran")


def _total(batch: Any) -> int:
    counts = batch.request_counts
    return counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired


def _params(request: dict[str, Any]) -> dict[str, Any]:
    """A prepared `messages.create` request as batch params: fields the SDK would have sent
    through `extra_body` go into the body itself."""
    params = {key: value for key, value in request.items() if key != "extra_body"}
    params.update(request.get("extra_body") or {})
    return params
