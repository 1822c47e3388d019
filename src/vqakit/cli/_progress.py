"""Progress on stderr for long verbs: n/N, errors so far and the time left; quiet when stderr is
not a terminal (logs and CI get only the final lines)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def progress(label: str = "") -> Iterator[Callable[..., None]]:
    """Yields `update(done, total, errors=0, label=None)`."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[errors]}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not sys.stderr.isatty(),
    )
    task = bar.add_task(label, total=None, errors="")

    def update(done: int, total: int | None, errors: int = 0, label: str | None = None) -> None:
        fields: dict[str, Any] = {
            "completed": done,
            "total": total,
            "errors": f"{errors} errors" if errors else "",
        }
        if label is not None:
            fields["description"] = label
        bar.update(task, **fields)

    with bar:
        yield update


def stage_printer(name_width: int) -> Callable[[Any], None]:
    """`on_stage` for a builder: one line per closed stage on stderr, `name  before -> after unit`
    (names padded to `name_width` so the counts line up)."""
    import click

    def show(stage: Any) -> None:
        click.echo(f"{stage.name:<{name_width}}{stage.before:>6} -> {stage.after:<6}{stage.unit}", err=True)

    return show
