"""What the integrity tests and benchmarks/integrity_audit.py share: where each preset's example
release is, the files of a folder, a folder of the user's for a command to meet, the processes
of a process group, and what a row of the audit's log table must say."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

# each preset's example release: (its folder under docs/examples/datasets, the release in it, the videos)
PRESET_EXAMPLES = {
    "videomme": ("videomme", ".", "data"),
    "nextqa": ("nextqa", "dataset/nextqa", "NExTVideo"),
    "egoschema": ("egoschema", ".", "videos"),
    "longvideobench": ("longvideobench", ".", "videos"),
    "mvbench": ("mvbench", ".", "video"),
    "mlvu": ("mlvu", "MLVU", "MLVU/video"),
    "perceptiontest": ("perceptiontest", ".", "videos"),
    "minerva-mcq": ("minerva", ".", "videos"),
}


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (relative path: bytes)."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def users_folder(folder: Path) -> Path:
    """A folder of the user's: notes, a video of theirs under media/, a samples.jsonl of theirs."""
    (folder / "media").mkdir(parents=True)
    (folder / "media/holiday.mp4").write_bytes(b"my own video")
    (folder / "samples.jsonl").write_text('{"mine": true}\n')
    (folder / "notes.txt").write_text("keep me")
    return folder


def group_members(group: int) -> list[str]:
    """Command lines of the live (not zombie) processes of process group `group`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            command = (
                Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        state, _parent, process_group = stat[stat.rindex(")") + 2 :].split()[:3]
        if int(process_group) == group and state != "Z":
            found.append(command.strip())
    return found


def log_row_holds(row: dict[str, Any]) -> None:
    """A row of the audit's log table (one damaged complete line, then the verb that reads its
    log): refused (exit 1) naming the line, every line kept; then with `--set-aside-bad-lines`
    done (exit 0) with that one line moved into the quarantine file; no line lost either way."""
    assert (row["exit"], row["named"], row["lost"], row["kept"]) == (1, True, 0, row["lines"]), row
    assert (row["aside exit"], row["set aside"], row["lost after"]) == (0, 1, 0), row
