"""When and how long to wait before trying a failed call again."""

from __future__ import annotations

import random
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from time import time


class BackendError(Exception):
    """A failed call, classified. `retryable` failures are tried again with backoff."""

    def __init__(
        self, kind: str, message: str, *, retryable: bool, retry_after_s: float | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retryable = retryable
        self.retry_after_s = retry_after_s


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


def classify_status(status: int, message: str, retry_after: str | None = None) -> BackendError:
    if status == 429:
        return BackendError(
            "rate_limit", message, retryable=True, retry_after_s=parse_retry_after(retry_after)
        )
    if status >= 500 or status in (408, 409):
        return BackendError("server", message, retryable=True, retry_after_s=parse_retry_after(retry_after))
    if status in (401, 403):
        return BackendError("auth", message, retryable=False)
    return BackendError("bad_request", message, retryable=False)
