"""OpenAI's Batch API (also on OpenAI-compatible servers that implement it).

Wire shapes (OpenAI API reference, Files and Batch):
- input: a JSONL file, one `{"custom_id", "method": "POST", "url": "/v1/chat/completions",
  "body": <the chat request>}` per line, uploaded as multipart to `POST /files` with
  `purpose=batch` (at most 50,000 requests and 200 MB per file; custom ids unique in a file);
- `POST /batches {"input_file_id", "endpoint": "/v1/chat/completions", "completion_window": "24h",
  "metadata"}` (metadata: at most 16 string pairs); `GET /batches?limit=&after=`: `{"data",
  "has_more", "last_id"}`, newest first, `created_at` in Unix seconds;
- `GET /batches/{id}`: `status` is validating, in_progress, finalizing, cancelling (running) or
  completed, failed, expired, cancelled (ended); `request_counts {total, completed, failed}`,
  `errors.data[].message` when the input failed validation;
- `GET /files/{output_file_id}/content` and `.../{error_file_id}/content`: JSONL lines
  `{"id", "custom_id", "response": {"status_code", "request_id", "body"} | null,
  "error": {"code", "message"} | null}`, in no particular order. A request the batch never ran
  (expired, cancelled) comes back in the error file with `batch_expired` / `batch_cancelled`.

Each batch is tagged with the intent it was submitted under (`metadata`: `vqakit_intent`, and
`vqakit_digest` of its requests), so `find` can tell it among the batches of the key.

An OpenAI-compatible server may have no batch API: a 404, 405 or 501 on the file upload raises
`BatchUnsupported` and its calls are sent one by one instead.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Collection
from typing import Any

from vqakit.models._batch_journal import BatchStatus, BatchUnsupported, Intent, failed
from vqakit.models._messages import Completion
from vqakit.models._openai import OpenAIBackend, _error_text, completion_from_reply
from vqakit.models._retry import BackendError, classify_status

ENDED = ("completed", "failed", "expired", "cancelled")
CHAT = "/v1/chat/completions"
NO_BATCH_API = (404, 405, 501)
_KINDS = {"batch_expired": "expired", "batch_cancelled": "cancelled"}
TAG, DIGEST = "vqakit_intent", "vqakit_digest"  # the batch's metadata keys
PAGE = 100  # batches per page of the list (the API's most)
MAX_PAGES = 20  # a lookup reads at most this many pages
SKEW_S = 600.0  # batches created this long before the intent was recorded are still looked at


class OpenAIBatchAPI:
    provider = "openai"
    max_requests = 50_000
    max_bytes = 190 * 2**20  # under the 200 MB limit, leaving room for the line wrappers

    def __init__(self, backend: OpenAIBackend, *, probe: bool) -> None:
        """`probe`: an OpenAI-compatible server, which may answer that it has no batch API."""
        self.root = backend.url.removesuffix("/chat/completions")
        self.model = str(backend.spec)
        self.probe = probe
        self.timeout_s = max(backend.request_timeout_s, 300.0)  # uploads and downloads are large
        # the backend's headers without its JSON content type (the upload is multipart)
        self._headers = {k: v for k, v in backend._headers.items() if k.lower() != "content-type"}
        self._batches: dict[str, dict[str, Any]] = {}  # the last batch object seen, by id
        self._sessions: dict[int, Any] = {}

    def _session(self) -> Any:
        import aiohttp

        loop = id(asyncio.get_running_loop())
        if loop not in self._sessions:
            self._sessions = {loop: aiohttp.ClientSession(headers=self._headers)}
        return self._sessions[loop]

    async def close(self) -> None:
        for session in self._sessions.values():
            await session.close()
        self._sessions = {}

    async def _call(self, method: str, path: str, **kwargs: Any) -> bytes:
        """One request; BackendError classified as for chat calls."""
        import aiohttp

        timeout = aiohttp.ClientTimeout(total=self.timeout_s)
        try:
            async with self._session().request(
                method, self.root + path, timeout=timeout, **kwargs
            ) as response:
                raw = await response.read()
                if response.status != 200:
                    if self.probe and path == "/files" and response.status in NO_BATCH_API:
                        raise BatchUnsupported(
                            f"{self.root} has no batch API (HTTP {response.status} on /files)"
                        )
                    raise classify_status(
                        response.status, _error_text(raw), response.headers.get("Retry-After")
                    )
                return raw
        except TimeoutError:
            raise BackendError("timeout", f"no reply within {self.timeout_s:g}s", retryable=True) from None
        except aiohttp.ClientError as error:
            raise BackendError("connection", f"{type(error).__name__}: {error}", retryable=True) from None

    async def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        raw = await self._call(method, path, **kwargs)
        try:
            found = json.loads(raw)
        except ValueError:
            raise BackendError("malformed", f"unreadable reply: {raw[:200]!r}", retryable=True) from None
        if not isinstance(found, dict) or "id" not in found:
            raise BackendError("malformed", f"unexpected reply: {raw[:200]!r}", retryable=True)
        return found

    async def submit(self, requests: dict[str, bytes], intent: Intent) -> str:
        """Upload the requests (prepared chat bodies by custom id) and start a batch tagged with
        the intent; its id."""
        import aiohttp

        lines = b"".join(
            b'{"custom_id": "%s", "method": "POST", "url": "%s", "body": %s}\n'
            % (key.encode(), CHAT.encode(), body)
            for key, body in requests.items()
        )
        form = aiohttp.FormData()
        form.add_field("purpose", "batch")
        form.add_field("file", lines, filename="vqakit-batch.jsonl", content_type="application/jsonl")
        uploaded = await self._json("POST", "/files", data=form)
        created = await self._json(
            "POST",
            "/batches",
            json={
                "input_file_id": uploaded["id"],
                "endpoint": CHAT,
                "completion_window": "24h",
                "metadata": {"source": "vqakit", TAG: intent.id, DIGEST: intent.digest},
            },
        )
        return str(created["id"])

    async def find(self, intent: Intent, known: Collection[str] = ()) -> str | None:
        """The batch tagged with this intent (and digest), among the key's batches created since
        shortly before it was recorded (the list is newest first); the tag is unique, so `known`
        needs no check."""
        after: str | None = None
        for _ in range(MAX_PAGES):
            query = f"?limit={PAGE}" + (f"&after={after}" if after else "")
            raw = await self._call("GET", f"/batches{query}")
            try:
                page = json.loads(raw)
                batches = list(page["data"])
            except (ValueError, KeyError, TypeError):
                raise BackendError("malformed", f"unexpected list: {raw[:200]!r}", retryable=True) from None
            for batch in batches:
                metadata = batch.get("metadata") or {}
                if metadata.get(TAG) == intent.id and metadata.get(DIGEST) == intent.digest:
                    return str(batch["id"])
            oldest = batches[-1].get("created_at") if batches else None
            if not batches or not page.get("has_more"):
                return None
            if isinstance(oldest, int | float) and oldest < intent.at - SKEW_S:
                return None
            after = str(page.get("last_id") or batches[-1]["id"])
        return None

    async def status(self, batch_id: str) -> BatchStatus:
        batch = await self._json("GET", f"/batches/{batch_id}")
        self._batches[batch_id] = batch
        counts = batch.get("request_counts") or {}
        done = (counts.get("completed") or 0) + (counts.get("failed") or 0)
        return BatchStatus(batch.get("status") in ENDED, str(batch.get("status")), done, counts.get("total"))

    async def results(self, batch_id: str, keys: tuple[str, ...]) -> dict[str, Completion]:
        """Every request's completion: a reply, or an error of the request's own kind."""
        batch = self._batches.get(batch_id) or await self._json("GET", f"/batches/{batch_id}")
        found: dict[str, Completion] = {}
        for file_id in (batch.get("output_file_id"), batch.get("error_file_id")):
            if not file_id:
                continue
            raw = await self._call("GET", f"/files/{file_id}/content")
            for line in raw.splitlines():
                if line.strip():
                    item = json.loads(line)
                    found[str(item.get("custom_id"))] = self._completion(item)
        status = str(batch.get("status"))
        problems = "; ".join(str(e.get("message")) for e in (batch.get("errors") or {}).get("data") or [])
        why = f"the batch {status}" + (f": {problems}" if problems else "")
        kind = {"failed": "batch_failed", "expired": "expired", "cancelled": "cancelled"}.get(
            status, "batch_missing"
        )
        return {
            key: found.get(key) or failed(self.model, kind, f"no reply in batch {batch_id} ({why})")
            for key in keys
        }

    def _completion(self, item: dict[str, Any]) -> Completion:
        error = item.get("error")
        if error:
            code = str(error.get("code") or "batch_error")
            return failed(self.model, _KINDS.get(code, code), str(error.get("message") or code))
        response = item.get("response") or {}
        body = response.get("body")
        status = response.get("status_code")
        if status != 200:
            message = _message(body) or f"HTTP {status}"
            return failed(self.model, classify_status(int(status or 500), message).kind, message)
        try:
            return completion_from_reply(body, self.model)
        except (KeyError, IndexError, TypeError, AttributeError) as error:
            return failed(self.model, "malformed", f"unreadable reply ({error!r}): {str(body)[:200]}")


def _message(body: Any) -> str:
    """The message of an error body (`{"error": {"message"}}`), else the body as text."""
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    text = str(message or (json.dumps(body) if body is not None else ""))
    return text if len(text) < 500 else text[:500] + "..."
