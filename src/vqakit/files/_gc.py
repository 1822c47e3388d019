"""Reading many records without paying for the cyclic garbage collector.

Reading a file of 100,000 samples or predictions makes hundreds of thousands of objects that
live on; CPython's collector, triggered by every few hundred allocations, walks them again and
again, which was more than half of the CPU of reading such a file. Records read from files hold
no reference cycles, so the collector is paused while they are read (reference counting still
frees what is dropped) and resumed after.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_PAUSED = [0, False]  # readers inside, and whether the collector was on before the first


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while the block runs (re-entrant, for any thread)."""
    with _LOCK:
        if _PAUSED[0] == 0:
            _PAUSED[1] = gc.isenabled()
            gc.disable()
        _PAUSED[0] += 1
    try:
        yield
    finally:
        with _LOCK:
            _PAUSED[0] -= 1
            if _PAUSED[0] == 0 and _PAUSED[1]:
                gc.enable()
