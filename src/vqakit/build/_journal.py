"""What a build has done so far, on disk, so that a killed or failed build resumes where it stopped.

`calls.jsonl`  one line per successful model step: its key (step, item and a hash of the exact
               request), and the validated result. A resumed build reuses it instead of asking
               the model again; failed steps are not recorded and are retried.
`drops.jsonl`  one line per dropped item: stage, item id and the reason (rewritten per run).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path
from typing import Any

from vqakit._jsonl import append_synced, complete_lines


class BuildJournal:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.calls_path = folder / "calls.jsonl"
        self.drops_path = folder / "drops.jsonl"
        self.results: dict[str, Any] = {
            record["key"]: record["result"] for record in complete_lines(self.calls_path, json.loads)
        }
        self.reused = 0
        self.drops: list[dict[str, str]] = []
        self.drops_path.write_text("", encoding="utf-8")

    @staticmethod
    def key(step: str, item: str, request: str) -> str:
        return f"{step}:{item}:{hashlib.sha256(request.encode()).hexdigest()[:16]}"

    def get(self, key: str) -> Any:
        if key in self.results:
            self.reused += 1
            return self.results[key]
        return None

    def put(self, key: str, result: Any) -> None:
        if key in self.results:
            return
        with open(self.calls_path, "a", encoding="utf-8") as handle:
            append_synced(handle, json.dumps({"key": key, "result": result}))
        self.results[key] = result

    def drop(self, stage: str, item: str, reason: str) -> None:
        record = {"stage": stage, "item": item, "reason": reason}
        with open(self.drops_path, "a", encoding="utf-8") as handle:
            append_synced(handle, json.dumps(record))
        self.drops.append(record)

    def reasons(self, stage: str) -> dict[str, int]:
        """Drop counts of a stage by reason (reasons are grouped by their text before any ':')."""
        return dict(Counter(d["reason"].split(":")[0] for d in self.drops if d["stage"] == stage))
