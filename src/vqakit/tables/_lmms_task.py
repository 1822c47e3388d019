"""What an exported lmms-eval task does when lmms-eval runs it: the exported `utils.py` binds an
`LmmsEvalTask` to its folder and hands lmms-eval its methods (`doc_to_visual`, `doc_to_text`,
`doc_to_target`, `process_results`, `aggregate`).

The task reads and scores exactly as vqakit does: the prompt is the one vqakit renders for the
sample (written into the rows at export), the reply is read by vqakit's answer extraction, an
abstention counts as wrong, a failed request (lmms-eval's `[LMMS_EVAL_REQUEST_FAILED ...]` reply)
is an error left out of the accuracy, and hidden answers are never scored. `visual` (in
`lmms_eval_specific_kwargs`) picks what the model sees: `frames`, the frames vqakit's protocol
samples (exact, in the sample's window), or `video`, the file path for lmms-eval's own sampling.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from vqakit.scoring import LETTERS, extract_choice

TASK_FILE = "vqakit_task.json"  # settings written at export, beside utils.py
FAILED = "[LMMS_EVAL_REQUEST_FAILED"


class LmmsEvalTask:
    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.settings: dict[str, Any] = json.loads((self.folder / TASK_FILE).read_text(encoding="utf-8"))
        media = Path(self.settings["media"])
        self.media = media if media.is_absolute() else (self.folder / media).resolve()

    def doc_to_visual(self, doc: dict[str, Any], kwargs: dict[str, Any] | None = None) -> list[Any]:
        if not doc.get("video"):
            return []
        path = self.media / doc["video"]
        if (kwargs or {}).get("visual", self.settings["visual"]) == "video":
            return [str(path)]
        from PIL import Image

        from vqakit.schema import Fps, Uniform, parse_sampling
        from vqakit.video import Resize, sample_frames

        spec = parse_sampling(self.settings["frames"])
        if isinstance(spec, Uniform | Fps) and spec.start_s is None and spec.end_s is None:
            spec = replace(spec, start_s=doc.get("start"), end_s=doc.get("end"))
        side = self.settings.get("short_side")
        frames = sample_frames(path, spec, resize=Resize(short_side=side) if side else None)
        return [Image.fromarray(frame.image) for frame in frames]

    def doc_to_text(self, doc: dict[str, Any], kwargs: dict[str, Any] | None = None) -> str:
        kwargs = kwargs or {}
        return f"{kwargs.get('pre_prompt', '')}{doc['prompt']}{kwargs.get('post_prompt', '')}"

    def doc_to_target(self, doc: dict[str, Any]) -> str:
        answer = doc.get("answer")
        if answer is None:
            return doc.get("answer_text") or ""
        return LETTERS[int(answer)]

    def process_results(self, doc: dict[str, Any], results: list[Any]) -> dict[str, Any]:
        reply = results[0] if results else None
        reply = reply if isinstance(reply, str) or reply is None else str(reply)
        item: dict[str, Any] = {"id": doc["id"], "chosen": None, "correct": None}
        options = list(doc.get("options") or [])
        if reply is not None and reply.startswith(FAILED):
            item["error"] = reply[:200]
        elif options:
            read = extract_choice(reply, len(options), choices=options, numbered=self.settings["numbered"])
            item["chosen"] = None if read.choice is None else LETTERS[read.choice]
            if doc.get("answer") is not None:
                item["correct"] = float(read.choice == int(doc["answer"]))
        return {self.settings["metric"]: item}

    def aggregate(self, items: list[dict[str, Any]]) -> float | None:
        """Accuracy over the scored questions (errors and hidden answers left out)."""
        scored = [item["correct"] for item in items if item.get("correct") is not None]
        return sum(scored) / len(scored) if scored else None
