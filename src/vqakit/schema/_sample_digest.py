"""How samples are told apart in indexes, and how many a loaded benchmark holds in memory: the
part of `_sample_file` that needs no NumPy (a benchmark held in memory is read and run without
importing it)."""

from __future__ import annotations

import hashlib

RESIDENT_UP_TO = 20_000
"""Benchmarks of up to this many samples are held in memory as a list (as they always were)."""


def sample_digest(sample_id: str) -> bytes:
    """The 128-bit digest a sample id is known by in indexes (distinct ids never share one in
    practice: a collision among a billion ids has a chance of about 1e-21)."""
    return hashlib.blake2b(sample_id.encode("utf-8", "surrogatepass"), digest_size=16).digest()
