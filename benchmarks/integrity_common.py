"""What the integrity audit's parts share (see benchmarks/integrity_audit.py): where the
repository's examples are, running `python -m vqakit` with the audited source, and inputs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures"
DATASETS = ROOT / "docs/examples/datasets"
SAMPLE = ROOT / "src/vqakit/benchmarks/sample"


class Audit:
    """Runs `python -m vqakit` with the audited source, in a work folder."""

    def __init__(self, src: Path, work: Path) -> None:
        self.src, self.work = src, work
        self.env = {**os.environ, "PYTHONPATH": str(src), "VQAKIT_CACHE_DIR": str(work / "cache")}
        self.env.setdefault("OMP_NUM_THREADS", "1")

    def run(self, *args: Any, timeout: float = 600) -> tuple[int, str]:
        done = subprocess.run(
            [sys.executable, "-m", "vqakit", *map(str, args)],
            capture_output=True, text=True, env=self.env, timeout=timeout, cwd=self.work,
        )  # fmt: skip
        return done.returncode, done.stdout + done.stderr


def egofact_inputs(folder: Path) -> list[Any]:
    from vqakit.video import write_index_clip

    for name in ("bikeA", "bikeB"):
        write_index_clip(folder / f"videos/{name}.mp4", seconds=20, fps=2, width=64, height=48, gop=10)
    steps = ((3.0, "picks up"), (8.5, "turns"), (15.0, "puts down"))
    events = [
        {"video": f"bike{v}.mp4", "time_s": t, "text": f"C {verb} the wrench"}
        for v in "AB"
        for t, verb in steps
    ]
    (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    passages = [
        {"id": f"p{i}", "title": "Wrenches", "text": f"How to hold a wrench, part {i}."} for i in range(3)
    ]
    (folder / "passages.jsonl").write_text("".join(json.dumps(p) + "\n" for p in passages))
    return ["build", "egofact", "--videos", folder / "videos", "--events", folder / "events.jsonl",
            "--passages", folder / "passages.jsonl"]  # fmt: skip
