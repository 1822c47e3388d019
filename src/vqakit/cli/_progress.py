"""Progress on stderr for long verbs: done/total, errors, samples not applicable (counted apart:
they are no failure), model calls being retried, and the time left.

On a terminal it is a bar that `close()` removes before the verb prints its summary, so a
summary is never glued to a stale bar. When stderr is not a terminal (logs, CI, `nohup`), a line
every `VQAKIT_PROGRESS_SECONDS` seconds (10 by default) says how far it is, and a line is written
as each retry of a model call begins, so a down server is never a long silence.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

DEFAULT_SECONDS = 10.0


def _interval() -> float:
    try:
        return max(0.05, float(os.environ.get("VQAKIT_PROGRESS_SECONDS", DEFAULT_SECONDS)))
    except ValueError:
        return DEFAULT_SECONDS


class ProgressDisplay:
    """`display(done, total, errors=0, label=None, not_applicable=0)` updates it (and opens a new
    bar after `close()`); `close()` ends the current one; `line(text)` writes a line above it."""

    def __init__(self, label: str = "") -> None:
        self.tty = sys.stderr.isatty()
        self.label = label
        self.done, self.total, self.errors, self.not_applicable = 0, None, 0, 0
        self.retrying: set[tuple[str, str | None]] = set()
        self.started = time.monotonic()
        self.active = False
        self._bar: Any = None
        self._task: Any = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    # -- what it shows ------------------------------------------------------------------
    def counts_text(self) -> str:
        parts = [f"{self.errors} errors"] if self.errors else []
        if self.not_applicable:
            parts.append(f"{self.not_applicable} not applicable")
        if self.retrying:
            parts.append(f"{len(self.retrying)} retrying")
        return ", ".join(parts)

    def status_line(self) -> str:
        total = "?" if self.total is None else str(self.total)
        parts = [f"{self.done}/{total} done", f"{self.errors} errors"]
        if self.not_applicable:
            parts.append(f"{self.not_applicable} not applicable")
        parts.append(f"{len(self.retrying)} retries in progress")
        elapsed = time.monotonic() - self.started
        return f"{self.label or 'progress'}: {', '.join(parts)} ({elapsed:.0f} s)"

    # -- updates ------------------------------------------------------------------------
    def __call__(
        self,
        done: int,
        total: int | None,
        errors: int = 0,
        label: str | None = None,
        not_applicable: int = 0,
    ) -> None:
        with self._lock:
            if label is not None and label != self.label:
                self.label = label
            self.done, self.total, self.errors, self.not_applicable = done, total, errors, not_applicable
            if not self.active:
                self._open()
            self._refresh()

    def _open(self) -> None:
        self.active = True
        self.started = time.monotonic()
        if self.tty:  # rich only for the bar: logs get plain lines, and no import of it
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[counts]}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self._task = self._bar.add_task(self.label, total=self.total, counts="")
            self._bar.start()
        else:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="vqakit-progress", daemon=True)
            self._ticker.start()

    def _refresh(self) -> None:
        if self._bar is not None:
            self._bar.update(
                self._task,
                completed=self.done,
                total=self.total,
                counts=self.counts_text(),
                description=self.label,
            )

    def _tick(self) -> None:
        while not self._stop.wait(_interval()):
            with self._lock:
                self._write(self.status_line())

    def _write(self, text: str) -> None:
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=sys.stderr, flush=True)

    def line(self, text: str) -> None:
        """Write a line on stderr, above the bar when there is one."""
        with self._lock:
            self._write(text)

    def close(self) -> None:
        """End the current bar (it disappears) or the periodic lines, before a summary is printed."""
        with self._lock:
            self.active = False
            if self._bar is not None:
                self._bar.stop()
                self._bar = None
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None

    # -- retries ------------------------------------------------------------------------
    def retry(self, event: Any) -> None:
        """A retry listener (`vqakit.models.watching_retries`)."""
        key = (event.model, event.sample_id)
        with self._lock:
            if event.phase == "begin":
                self.retrying.add(key)
                if not self.tty:
                    who = f" ({event.sample_id})" if event.sample_id else ""
                    self._write(
                        f"retrying {event.model}{who}: {event.kind}: {event.message}; attempt "
                        f"{event.attempt + 1} of {event.max_attempts} in {event.wait_s:.1f} s"
                    )
            else:
                self.retrying.discard(key)
            self._refresh()


@contextmanager
def progress(label: str = "") -> Iterator[ProgressDisplay]:
    """A `ProgressDisplay` that hears the retries of model calls made inside the block, closed
    when the block ends (however it ends)."""
    from vqakit.models import watching_retries

    display = ProgressDisplay(label)
    try:
        with watching_retries(display.retry):
            yield display
    finally:
        display.close()


def stage_printer(name_width: int) -> Callable[[Any], None]:
    """`on_stage` for a builder: one line per closed stage on stderr, `name  before -> after unit`
    (names padded to `name_width` so the counts line up)."""
    import click

    def show(stage: Any) -> None:
        click.echo(f"{stage.name:<{name_width}}{stage.before:>6} -> {stage.after:<6}{stage.unit}", err=True)

    return show
