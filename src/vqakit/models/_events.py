"""Retries as they happen, for whoever shows progress: a listener registered with
`watching_retries` hears each retry as it begins and each retried call once it has settled
(answered, or failed for good), so a display can say how many retries are in progress instead
of going silent while a server is down. Listeners follow the context (asyncio tasks and worker
threads started inside the block hear them); a listener that raises is logged and ignored."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Literal

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RetryEvent:
    phase: Literal["begin", "settled"]  # a retry begins / a call that was retried has settled
    model: str
    sample_id: str | None
    attempt: int  # the attempt that failed (begin) or the last one made (settled)
    max_attempts: int
    kind: str = ""  # why the attempt failed (begin): rate_limit, server, timeout, ...
    message: str = ""  # the failure, secrets redacted
    wait_s: float = 0.0  # how long until the next attempt (begin)
    ok: bool = False  # settled: whether the call got a usable reply in the end


RetryListener = Callable[[RetryEvent], None]
_LISTENERS: ContextVar[tuple[RetryListener, ...]] = ContextVar("vqakit_retry_listeners", default=())


@contextmanager
def watching_retries(listener: RetryListener) -> Iterator[None]:
    """Call `listener` for every retry event of model calls made inside the block."""
    token = _LISTENERS.set((*_LISTENERS.get(), listener))
    try:
        yield
    finally:
        _LISTENERS.reset(token)


def tell(event: RetryEvent) -> None:
    for listener in _LISTENERS.get():
        try:
            listener(event)
        except Exception:  # a display must never break a call
            log.exception("retry listener failed")
