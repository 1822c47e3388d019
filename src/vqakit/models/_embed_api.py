"""Text embeddings from an embeddings API: OpenAI's `/v1/embeddings`, and any OpenAI-compatible
server that has it (vLLM, Ollama, llama.cpp, LM Studio, text-embeddings-inference, ...).

Specs: `openai:<model>` (e.g. `openai:text-embedding-3-small`; key from OPENAI_API_KEY, sent to
OPENAI_BASE_URL when set, as for chat) and `openai-compatible:<base url>#<model>` (key from
VQAKIT_API_KEY when the server needs one, or VQAKIT_API_BASIC_AUTH=user:password). A spec
carrying a key is refused, as a chat model's is. Either may end in `?dimensions=N` for models that
can shorten their vectors (text-embedding-3-*).

Requests carry up to `batch_size` texts (default 128; OpenAI takes up to 2048 inputs and 300k
tokens a request) and up to `concurrency` of them (default 4) are in flight at once, each on
its own keep-alive connection. The client is the standard library's `http.client`: no SDK and
no event loop, so it serves the synchronous `embed()` from any thread, inside async code too.
Failures are classified as chat calls are (`classify_status`): 429, 5xx, 408/409, timeouts,
dropped connections and unreadable replies are tried again with exponential backoff and full
jitter (`RetryPolicy`), and a server's Retry-After wins; 401 and 403 fail at once, and a 400 is
tried again in halves of the batch (a request over the server's token limit), so it fails only
for a single text. The last failure raises `EmbeddingError`, with every secret redacted from its
message.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from http.client import HTTPConnection, HTTPException, HTTPSConnection
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import numpy as np

from vqakit.models._backends import find_backend
from vqakit.models._openai import OPENAI_URL, _error_text, authorization
from vqakit.models._retry import BackendError, RetryPolicy, classify_status
from vqakit.models._secrets import redact_secrets
from vqakit.models._spec import parse_model_spec, refuse_credentials

log = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 128
DEFAULT_CONCURRENCY = 4


class EmbeddingError(RuntimeError):
    """An embeddings request that failed for good (after retries, or at once when retrying cannot
    help). `kind` is the failure's class: rate_limit, server, timeout, connection, malformed,
    auth, bad_request."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class EmbedderSpec:
    backend: str  # "openai" or "openai-compatible"
    model: str
    base_url: str | None = None
    dimensions: int | None = None


def parse_embedder_spec(text: str) -> EmbedderSpec:
    """`openai:<model>[?dimensions=N]` or `openai-compatible:<base url>#<model>[?dimensions=N]`;
    the part before the settings is read as a chat model spec is (`parse_model_spec`)."""
    refuse_credentials(text, find_backend(text.strip().partition(":")[0]))
    if text.strip().partition(":")[0] not in ("openai", "openai-compatible"):
        raise ValueError(f"text embedder {text!r}: an embeddings API spec is openai: or openai-compatible:")
    head, hash_sign, tail = text.strip().rpartition("#")  # a base URL may carry its own ?query
    model, question, query = tail.partition("?")
    try:
        spec = parse_model_spec(f"{head}{hash_sign}{model}")
    except ValueError as error:
        raise ValueError(f"text embedder {text!r}: {error}") from None
    dimensions = None
    for key, value in parse_qsl(query, keep_blank_values=True) if question else []:
        if key != "dimensions" or not value.isdigit() or int(value) < 1:
            raise ValueError(f"text embedder {text!r}: the only setting is dimensions=<positive integer>")
        dimensions = int(value)
    return EmbedderSpec(spec.backend, spec.model, spec.base_url, dimensions)


class EmbeddingsClient:
    """Batched, concurrent, retried calls to one `/embeddings` endpoint. `embed(texts)` returns
    the vectors as the server sent them (float32, in input order); callers normalise and cache."""

    def __init__(
        self,
        spec: str,
        *,
        batch_size: int | None = None,
        concurrency: int = DEFAULT_CONCURRENCY,
        request_timeout_s: float = 60.0,
        total_timeout_s: float | None = 600.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.spec = spec
        parsed = parse_embedder_spec(spec)
        official = parsed.backend == "openai"
        auth = authorization(parsed.backend, required=official)
        root = (os.environ.get("OPENAI_BASE_URL") or OPENAI_URL) if official else str(parsed.base_url)
        url = urlsplit(root.rstrip("/"))
        self._https = url.scheme == "https"
        self._host = url.netloc
        self._path = f"{url.path.rstrip('/')}/embeddings" + (f"?{url.query}" if url.query else "")
        self.model, self.dimensions = parsed.model, parsed.dimensions
        self.batch_size = max(1, batch_size or DEFAULT_BATCH_SIZE)
        self.concurrency = max(1, concurrency)
        self.request_timeout_s = request_timeout_s
        self.total_timeout_s = total_timeout_s
        self.retry = retry or RetryPolicy()
        self._headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            **auth,
        }
        self._local = threading.local()  # one keep-alive connection per thread
        self._connections: list[HTTPConnection] = []
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Vectors of `texts`, in order: `batch_size` texts a request, `concurrency` at once."""
        batches = [texts[i : i + self.batch_size] for i in range(0, len(texts), self.batch_size)]
        if not batches:
            return np.zeros((0, 0), dtype=np.float32)
        if len(batches) == 1 or self.concurrency == 1:
            parts = [self._embed_batch(batch) for batch in batches]
        else:
            parts = list(self._executor().map(self._embed_batch, batches))
        return np.concatenate(parts).astype(np.float32, copy=False)

    def close(self) -> None:
        with self._pool_lock:
            for connection in self._connections:
                connection.close()
            self._connections = []
            if self._pool is not None:
                self._pool.shutdown(wait=False)
                self._pool = None
        self._local = threading.local()

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.concurrency, thread_name_prefix="vqakit-embed")
            return self._pool

    def _embed_batch(self, batch: list[str]) -> np.ndarray:
        """One request, retried; a batch refused as a bad request is tried again in halves (a
        request may hold too many tokens in all), so only a text that fails alone fails."""
        try:
            return self._request(batch)
        except EmbeddingError as error:
            if error.kind != "bad_request" or len(batch) < 2:
                raise
            log.debug("%s: %d texts refused together; trying halves", self.spec, len(batch))
            half = len(batch) // 2
            return np.concatenate([self._embed_batch(batch[:half]), self._embed_batch(batch[half:])])

    def _request(self, batch: list[str]) -> np.ndarray:
        # an empty input is refused by OpenAI (400 for the whole batch); a space means the same
        body: dict[str, Any] = {"model": self.model, "input": [text or " " for text in batch]}
        if self.dimensions:
            body["dimensions"] = self.dimensions
        payload = json.dumps(body).encode()
        started, attempt = time.monotonic(), 0
        while True:
            attempt += 1
            try:
                return self._send(payload, len(batch))
            except BackendError as error:
                wait = self.retry.wait_s(attempt, error)
                spent = time.monotonic() - started
                late = self.total_timeout_s is not None and spent + wait > self.total_timeout_s
                if not error.retryable or attempt >= self.retry.max_attempts or late:
                    tries = f" (after {attempt} attempts)" if error.retryable else ""
                    message = f"{self.spec}: {error.kind}: {error.message}{tries}"
                    raise EmbeddingError(error.kind, redact_secrets(message)) from None
                why = redact_secrets(error.message)
                log.debug("%s: %s; retry %d in %.2fs", self.spec, why, attempt, wait)
                time.sleep(wait)

    def _connection(self) -> HTTPConnection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            kind = HTTPSConnection if self._https else HTTPConnection
            connection = kind(self._host, timeout=self.request_timeout_s)
            self._local.connection = connection
            with self._pool_lock:
                self._connections.append(connection)
        return connection

    def _drop_connection(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None

    def _send(self, payload: bytes, count: int) -> np.ndarray:
        connection = self._connection()
        try:
            connection.request("POST", self._path, body=payload, headers=self._headers)
            response = connection.getresponse()
            raw = response.read()
        except TimeoutError:
            self._drop_connection()
            raise BackendError(
                "timeout", f"no reply within {self.request_timeout_s:g}s", retryable=True
            ) from None
        except (OSError, HTTPException) as error:
            self._drop_connection()
            raise BackendError("connection", f"{type(error).__name__}: {error}", retryable=True) from None
        if response.status != 200:
            if response.getheader("Connection", "").lower() == "close":
                self._drop_connection()
            raise classify_status(response.status, _error_text(raw), response.getheader("Retry-After"))
        return _vectors(raw, count)


def _vectors(raw: bytes, count: int) -> np.ndarray:
    """The `data[].embedding` lists of a reply, in input order (by `index`)."""
    try:
        data = json.loads(raw)["data"]
        rows = sorted(data, key=lambda row: row.get("index", 0))
        vectors = np.array([row["embedding"] for row in rows], dtype=np.float32)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise BackendError(
            "malformed", f"unreadable reply ({error!r}): {raw[:200]!r}", retryable=True
        ) from None
    if vectors.ndim != 2 or len(vectors) != count or not np.isfinite(vectors).all():
        shape = "x".join(str(n) for n in vectors.shape)
        raise BackendError("malformed", f"{shape} vectors for {count} inputs", retryable=True)
    return vectors
