"""Worker processes for decode jobs, started on first use.

PyAV releases the GIL only around parts of decoding, and encoding JPEGs holds it for a while,
so threads of one process leave cores idle; jobs (`methods.FrameProvider`) go to processes
instead. They are started with `spawn` (the run's process has threads: forking it is unsafe)
only when the provider asks (once a run has more frames to decode than a few jobs: see
`methods.PROCESS_FRAMES`), so a run answered from the caches, or one with few frames, starts
none. A worker imports only what a job uses (`methods.warm_decoder`), not the run's modules.

No orphans: a worker ends as soon as the process that started it is gone, however it went
(kill -9 included). Each worker watches the pipe `multiprocessing` keeps from its parent (its
`parent_process().sentinel`, whose other end only the parent holds: the kernel closes it when the
parent dies) in a thread, and exits when it closes. A worker would otherwise wait on the job queue
for ever (its own copy of the queue's writing end keeps the queue open), and keep alive
multiprocessing's resource tracker, which ends once every process holding its pipe has.
"""

from __future__ import annotations

import os
import sys
import threading
from concurrent.futures import Executor, Future
from pathlib import Path
from typing import Any


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def spawn_is_safe() -> bool:
    """Whether worker processes can be started here. A started process imports the main module
    again: harmless for the command line (`python -m vqakit`), for `python -c`, notebooks and
    modules run with `-m`, and for scripts guarded by `if __name__ == "__main__":`; a script
    without the guard would start the run again in every worker, so its runs decode in threads."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if path is None or getattr(main, "__spec__", None) is not None:
        return True
    try:
        source = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "__name__" in source and "__main__" in source


def end_with_parent() -> None:
    """In a process started by `multiprocessing`: exit at once when its parent ends (the pipe
    from the parent closes), watched by a daemon thread."""
    import multiprocessing  # in the worker: a run that starts none imports it not at all

    parent = multiprocessing.parent_process()
    if parent is None:
        return
    from multiprocessing.connection import wait

    sentinel = parent.sentinel

    def watch() -> None:
        wait([sentinel])
        os._exit(0)  # the parent is gone: nothing here is wanted any more

    threading.Thread(target=watch, name="vqakit-parent-watch", daemon=True).start()


def _warm() -> None:
    end_with_parent()
    from vqakit.methods import warm_decoder

    warm_decoder()  # a job's imports, once per worker


def _started() -> bool:
    return True


class DecodePool:
    """`ready()` starts the processes (at most `workers`, default the usable cores, at most 8)
    the first time it is called, and returns the pool once they have started, None until then
    (the caller decodes in a thread meanwhile, rather than wait for the start); `shutdown()`
    ends them."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = max(1, workers or min(usable_cores(), 8))
        self._executor: Any = None  # a ProcessPoolExecutor once started
        self._started: list[Future] = []

    def ready(self) -> Executor | None:
        if self._executor is None:
            if not spawn_is_safe():
                return None
            from concurrent.futures import ProcessPoolExecutor
            from multiprocessing import get_context

            self._executor = ProcessPoolExecutor(
                self.workers, mp_context=get_context("spawn"), initializer=_warm
            )
            self._started = [self._executor.submit(_started) for _ in range(self.workers)]
        if all(future.done() for future in self._started):
            return self._executor
        return None

    @property
    def started(self) -> bool:
        return self._executor is not None

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
