"""The model steps a build has completed, on disk, so that a killed or failed build resumes where
it stopped.

`calls.jsonl` holds one line per successful model step: its key (step, item and a hash of the
exact request) and the validated result. A resumed build reuses it instead of asking the model
again; failed steps are not recorded, so they are asked again. A last line cut short by a kill is
ignored (and trimmed before the next append).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from vqakit.files import append_synced, complete_lines

CALLS = "calls.jsonl"


class BuildJournal:
    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / CALLS
        self.results: dict[str, Any] = {
            record["key"]: record["result"] for record in complete_lines(self.path, json.loads)
        }
        self.reused = 0  # steps answered from the journal in this run

    @staticmethod
    def key(step: str, item: str, request: str) -> str:
        """`step:item:hash`; `request` is everything the model sees (prompt text, image pixels)."""
        return f"{step}:{item}:{hashlib.sha256(request.encode()).hexdigest()[:16]}"

    def get(self, key: str) -> Any:
        """The recorded result of a step (counted as reused), or None when it was never completed."""
        if key in self.results:
            self.reused += 1
            return self.results[key]
        return None

    def put(self, key: str, result: Any) -> None:
        if key in self.results:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            append_synced(handle, json.dumps({"key": key, "result": result}))
        self.results[key] = result
