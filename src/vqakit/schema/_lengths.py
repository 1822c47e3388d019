"""Video-length buckets, shared by result breakdowns and dataset statistics."""

from __future__ import annotations

# Up to Minerva-Ego's longest videos (75 min), so that a decline beyond one hour shows.
LENGTH_BUCKETS = (
    (60, "<1 min"),
    (180, "1-3 min"),
    (600, "3-10 min"),
    (1800, "10-30 min"),
    (3600, "30-60 min"),
)
LONGEST_BUCKET = ">1 h"


def length_buckets() -> list[str]:
    """The bucket labels, shortest first."""
    return [label for _, label in LENGTH_BUCKETS] + [LONGEST_BUCKET]


def length_bucket(seconds: float) -> str:
    """The bucket of a video (or window) of this many seconds."""
    for limit, label in LENGTH_BUCKETS:
        if seconds < limit:
            return label
    return LONGEST_BUCKET
