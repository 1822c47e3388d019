"""How long a model call may take: one request, and one call with its retries.

Set for every model of a run (`vqakit eval --request-timeout S --total-timeout S`, or
`Model(request_timeout_s=..., total_timeout_s=...)`) or for one model in its spec, after the
model name with the generation settings (`openai:gpt-4o?timeout=30&total_timeout=300`); the
spec's win. They change how long vqakit waits, never what a model is asked: they are not part
of the response cache key nor of what a resumed run must match.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import parse_qsl

REQUEST_TIMEOUT_S = 120.0  # one request (a reply that has not come by then is a `timeout`)
TOTAL_TIMEOUT_S = 600.0  # one call with all its retries and their waits
LIMIT_KEYS = {"timeout": "request_s", "total_timeout": "total_s"}  # spec key -> field

LIMITS_FORM = (
    "<any form>?timeout=S&total_timeout=S",
    "openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?timeout=30",
    f"time limits in seconds: one request (default {REQUEST_TIMEOUT_S:g}) and one call with its "
    f"retries (default {TOTAL_TIMEOUT_S:g}); `vqakit eval --request-timeout/--total-timeout` set "
    "them for every model of a run, a spec's own win",
)


@dataclass(frozen=True)
class TimeLimits:
    """Seconds one request (`request_s`) and one call with its retries (`total_s`) may take;
    None where not given (the caller's default then)."""

    request_s: float | None = None
    total_s: float | None = None

    def query(self) -> str:
        """`timeout=30&total_timeout=300`, the given ones, as a spec writes them."""
        return "&".join(
            f"{key}={value:g}"
            for key, field in LIMIT_KEYS.items()
            if (value := getattr(self, field)) is not None
        )


def _seconds(key: str, value: str) -> float:
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise ValueError(f"{key}={value!r}: give seconds above 0, e.g. {key}=30")
    return seconds


def split_limits(query: str) -> tuple[str, TimeLimits]:
    """A spec's query without its time limits, and the limits it gave (ValueError for a bad one)."""
    if not query:
        return query, TimeLimits()
    kept, limits = [], {}
    for part in query.split("&"):
        pairs = parse_qsl(part, keep_blank_values=True)
        if len(pairs) == 1 and pairs[0][0] in LIMIT_KEYS:
            key, value = pairs[0]
            if LIMIT_KEYS[key] in limits:
                raise ValueError(f"settings {query!r}: {key!r} given twice")
            limits[LIMIT_KEYS[key]] = _seconds(key, value)
        else:
            kept.append(part)
    return "&".join(kept), TimeLimits(**limits)


def effective_limits(limits: TimeLimits, request_s: float | None, total_s: float | None) -> TimeLimits:
    """The limits a model runs with: the spec's, else the run's, else the defaults."""
    return TimeLimits(
        limits.request_s or request_s or REQUEST_TIMEOUT_S,
        limits.total_s or total_s or TOTAL_TIMEOUT_S,
    )
