"""Finding run folders under a folder, with their headline numbers (`vqakit runs`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from vqakit.runs._folder import CONFIG, RESULTS, RunFolder, RunFolderError


@dataclass(frozen=True)
class RunSummary:
    folder: Path
    bench: str
    method: str
    model: str | None
    n: int  # scored MCQ samples
    accuracy: float | None  # MCQ accuracy over scored samples
    open_ended_n: int
    open_ended_accuracy: float | None
    errors: int
    finished: int  # samples with a prediction
    updated: datetime  # when results.json (or config.yaml) was last written
    frames: str | None = None  # the frame spec the model was sent (None: no video was sent)
    results: dict = field(default_factory=dict, repr=False)  # results.json, for its headline


def _frames_sent(run: RunFolder, settings: dict) -> str | None:
    """The manifest's `frames_sent` (None for a method that sends no video); for runs made
    before it was written, the protocol's frame spec."""
    manifest = run.manifest
    if "frames_sent" in manifest:
        return manifest["frames_sent"]
    return (settings.get("protocol") or {}).get("frames")


def list_runs(root: str | Path) -> list[RunSummary]:
    """Every run folder under `root` (itself included), newest first; unreadable ones are skipped."""
    root = Path(root)
    found = []
    for config in sorted(root.rglob(CONFIG)):
        try:
            run = RunFolder(config.parent)
            settings, results = run.config, run.results
        except RunFolderError:
            continue
        mcq = results.get("mcq") or results.get("overall") or {}
        open_ended = results.get("open_ended") or {}
        stamp = (run.path / RESULTS) if (run.path / RESULTS).is_file() else config
        found.append(
            RunSummary(
                folder=run.path,
                bench=str(settings.get("bench", "?")),
                method=str(settings.get("method", "?")),
                model=settings.get("model"),
                n=int(mcq.get("n") or 0),
                accuracy=mcq.get("accuracy"),
                open_ended_n=int(open_ended.get("n") or 0),
                open_ended_accuracy=open_ended.get("accuracy"),
                errors=int((results.get("errors") or {}).get("n") or 0),
                finished=sum(results.get("counts", {}).values()),
                updated=datetime.fromtimestamp(stamp.stat().st_mtime, tz=UTC),
                frames=_frames_sent(run, settings),
                results=results,
            )
        )
    return sorted(found, key=lambda summary: summary.updated, reverse=True)
