"""When and how long to wait before trying a failed call again, and when to stop trying an
endpoint at all (`CircuitBreaker`)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from time import time


class BackendError(Exception):
    """A failed call, classified. `retryable` failures are tried again with backoff; `status` is
    the HTTP status of an error reply."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        retryable: bool,
        retry_after_s: float | None = None,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.status = status


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with full jitter: try n waits up to base * 2**n, capped at max_wait_s.
    A server's Retry-After wins when it is given (capped at `max_retry_after_s`)."""

    max_attempts: int = 6
    base_s: float = 1.0
    max_wait_s: float = 60.0
    max_retry_after_s: float = 300.0

    def wait_s(self, attempt: int, error: BackendError, rng: random.Random | None = None) -> float:
        if error.retry_after_s is not None:
            return min(max(error.retry_after_s, 0.0), self.max_retry_after_s)
        ceiling = min(self.max_wait_s, self.base_s * 2 ** (attempt - 1))
        return (rng or random).uniform(0, ceiling)


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header: delta-seconds or an HTTP date."""
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time())
    except (TypeError, ValueError):
        return None


def http_error_text(status: int, url: str | None, body: str) -> str:
    """`HTTP 404 from URL: <the first line of the body>`: what an error record keeps of an error
    reply (a key in it is redacted where it is stored)."""
    first = next((line.strip() for line in body.splitlines() if line.strip()), "")
    first = first if len(first) <= 300 else first[:300] + "..."
    where = f" from {url}" if url else ""
    return f"HTTP {status}{where}: {first}" if first else f"HTTP {status}{where} (empty body)"


def classify_status(
    status: int, message: str, retry_after: str | None = None, *, url: str | None = None
) -> BackendError:
    """The failure an error reply is: its kind, whether to retry, and its status, URL and the
    first line of its body in the message."""
    text = http_error_text(status, url, message)
    if status == 429:
        return BackendError(
            "rate_limit", text, retryable=True, retry_after_s=parse_retry_after(retry_after), status=status
        )
    if status >= 500 or status in (408, 409):
        wait = parse_retry_after(retry_after)
        return BackendError("server", text, retryable=True, retry_after_s=wait, status=status)
    if status in (401, 403):
        return BackendError("auth", text, retryable=False, status=status)
    return BackendError("bad_request", text, retryable=False, status=status)


STOP_AFTER = 20  # requests to one endpoint that failed the same way in a row: the run stops


def transport_failure(error: BackendError) -> tuple[str, int | None] | None:
    """How a request failed at the transport level (no connection, no reply in time, a key
    refused, nothing at that URL, the server failing), as (kind, status); None for failures
    that can be the request's own (a 400 for one long video, a rate limit, an empty reply)."""
    status = error.status
    if error.kind in ("connection", "timeout") or status in (401, 403, 404) or (status or 0) >= 500:
        return error.kind, status
    return None


@dataclass(frozen=True)
class EndpointDown:
    """An endpoint whose last `requests` requests all failed the same way."""

    endpoint: str
    requests: int
    kind: str
    message: str  # the last failure, as its error record says it

    def __str__(self) -> str:
        return (
            f"the last {self.requests} requests to {self.endpoint} all failed the same way "
            f"({self.kind}: {self.message})"
        )


class CircuitBreaker:
    """Stops trying an endpoint once its last `threshold` requests failed the same way at the
    transport level (`transport_failure`): `on_trip` hears it once, and `down(endpoint)` says so
    to every later call, which then sends nothing. A reply, or a failure of another kind, starts
    the count again."""

    def __init__(self, on_trip: Callable[[EndpointDown], None], threshold: int = STOP_AFTER) -> None:
        self.on_trip = on_trip
        self.threshold = threshold
        self._streaks: dict[str, tuple[tuple[str, int | None], int]] = {}
        self._down: dict[str, EndpointDown] = {}

    def down(self, endpoint: str) -> EndpointDown | None:
        return self._down.get(endpoint)

    def record(self, endpoint: str, error: BackendError | None) -> None:
        """One request's outcome: None for a reply."""
        how = transport_failure(error) if error is not None else None
        if how is None or error is None:
            self._streaks.pop(endpoint, None)
            return
        before, count = self._streaks.get(endpoint, (how, 0))
        count = count + 1 if before == how else 1
        self._streaks[endpoint] = (how, count)
        if count >= self.threshold and endpoint not in self._down:
            self._down[endpoint] = EndpointDown(endpoint, count, error.kind, error.message)
            self.on_trip(self._down[endpoint])


_BREAKER: ContextVar[CircuitBreaker | None] = ContextVar("vqakit_circuit_breaker", default=None)


@contextmanager
def stopping_failing_endpoints(
    on_trip: Callable[[EndpointDown], None], threshold: int = STOP_AFTER
) -> Iterator[CircuitBreaker]:
    """Model calls made inside the block (asyncio tasks and threads started in it included)
    count their requests per endpoint in one `CircuitBreaker`; outside any such block nothing
    is counted and no endpoint is ever given up on."""
    breaker = CircuitBreaker(on_trip, threshold)
    token = _BREAKER.set(breaker)
    try:
        yield breaker
    finally:
        _BREAKER.reset(token)


def current_breaker() -> CircuitBreaker | None:
    return _BREAKER.get()
