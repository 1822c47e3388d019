"""Test helpers of the claim judges: a tiny MovieRecapsQA benchmark folder (open-ended questions
with facts, category, modality and a movie SRT) and a loopback OpenAI-compatible server whose
replies depend on the request, shaped like what the `mr_*` prompts ask for. The server is a test
double at the HTTP boundary: it reads the prompt, not a model."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from fake_server import FakeServer, chat_reply

from vqakit.builders import write_benchmark_folder

SRT = """1
00:01:35,000 --> 00:01:37,000
Where is the key?

2
00:01:40,000 --> 00:01:43,500
Mara hid the key
under the stone.

3
00:02:10,000 --> 00:02:12,000
We leave at dawn.

4
00:03:20,000 --> 00:03:22,000
This line is outside every segment.
"""

FACTS_0 = ["Mara hides the key under a stone.", "Tom watches Mara from the doorway."]
FACTS_1 = ["At dawn, Mara and Tom leave the farm.", "Tom carries the lantern."]


def question(text: str, category: str, modality: str, segment: int, question_id: int) -> dict[str, Any]:
    """A sample in the shape `vqakit import movierecapsqa` writes (id `video.segment.question`)."""
    facts = FACTS_0 if segment == 0 else FACTS_1
    return {
        "id": f"v1.{segment}.{question_id}",
        "question": text,
        "answer": "Something.",
        "videos": [{"path": "media/recap.mp4", "start_s": 0.0, "end_s": 10.0}],
        "facts": facts[:1],
        "metadata": {
            "category": category,
            "modality": modality,
            "video_id": "v1",
            "segment_id": segment,
            "question_id": question_id,
            "aligned_fact_ids": [f"f{segment}-0"],
            "segment_fact_ids": [f"f{segment}-{i}" for i in range(len(facts))],
            "segment_facts": facts,
            "recap_window": [0.0, 10.0],
            "movie_window": [90.0, 120.0] if segment == 0 else [125.0, 190.0],
            "video_roles": ["recap_segment"],
            "movie_subtitles": "media/movie.srt",
        },
    }


QUESTIONS = [
    question("Where does Mara hide the key?", "NPA", "dialogue", 0, 0),
    question("How does Tom feel about Mara?", "CRD", "scene", 0, 1),
    question("When do they leave?", "TEMP", "multimodal", 1, 0),
    question("What does Tom carry?", "STA", "scene", 1, 1),
    question("What does the lantern stand for?", "TH", "multimodal", 1, 2),
]


def build_bench(root: Path, clip: Path) -> Any:
    """The tiny benchmark in `root` (the recap clip is `clip`, the movie SRT written here)."""
    srt = root.parent / "movie.srt"
    srt.write_text(SRT, encoding="utf-8")
    card = {"name": "mr-tiny", "version": "1", "license": "CC0-1.0", "description": "MovieRecapsQA test."}
    card["protocol"] = {"prompt": "open_short"}
    return write_benchmark_folder(
        root, card=card, samples=QUESTIONS, media={"recap.mp4": clip, "movie.srt": srt}, writer="claim test"
    )


def text_of(message: dict[str, Any]) -> str:
    value = message.get("content") or ""
    return value if isinstance(value, str) else " ".join(part.get("text", "") for part in value)


def listed_claims(prompt: str) -> list[str]:
    """The numbered claims a claim-judge prompt shows."""
    block = prompt.split("Claims of the answer:\n", 1)[1].split("\n\n", 1)[0]
    return [re.sub(r"^\d+\. ", "", line) for line in block.splitlines() if line.strip()]


def split_claims(prompt: str) -> list[str]:
    """Claims of the answer in an extraction prompt: its sentences, split at `and`."""
    answer = prompt.split("\nAnswer: ", 1)[1].split("\n\nHow to split:", 1)[0].strip()
    if "cannot tell" in answer.lower():
        return []
    parts = [p.strip(" .") for s in answer.split(". ") for p in s.split(" and ")]
    return [f"{p[0].upper()}{p[1:]}." for p in parts if p]


def factuality_label(claim: str, prompt: str) -> str:
    lowered = claim.lower()
    if "red car" in lowered:
        return "UNSUPPORTED"
    if "hates" in lowered:
        return "CONTRADICTORY"
    return "SUPPORTED" if "stone" in lowered or "dawn" in lowered else "PARTIALLY SUPPORTED"


def verdicts(claims: list[str], label: Any, leave_out: bool = False) -> str:
    items = [
        {"claim_number": i, "claim_text": c, "label": label(c, i), "justification": f"because of claim {i}"}
        for i, c in enumerate(claims, start=1)
    ]
    if leave_out:
        items = items[:-1]
    labels = [item["label"] for item in items]
    bad = sum(1 for lab in labels if lab in ("UNSUPPORTED", "CONTRADICTORY", "NOT_RELEVANT", "REDUNDANT"))
    return json.dumps({"claims": items, "score": max(0, 5 - 2 * bad), "explanation": "counted the labels"})


class LoopbackJudges(FakeServer):
    """Answers the four `mr_*` prompts; keeps every conversation (`chats`). A factuality reply
    first leaves out the last claim of an answer with several claims (the judge is asked again);
    `fail_claims` holds answers whose extraction gets an HTTP 400."""

    def __init__(self, fail_claims: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.chats: list[list[dict[str, Any]]] = []
        self.fail_claims = set(fail_claims)
        server = self

        class Handler(self.httpd.RequestHandlerClass):  # type: ignore[name-defined, misc]
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with server.lock:
                    server.chats.append(body["messages"])
                reply = server.reply(body["messages"])
                if isinstance(reply, int):
                    return self._send(reply, {"error": {"message": f"scripted {reply}"}})
                return self._send(200, chat_reply(reply))

        self.httpd.RequestHandlerClass = Handler

    def reply(self, messages: list[dict[str, Any]]) -> str | int:
        prompt = text_of(messages[0])
        repair = len(messages) > 1
        if prompt.startswith("Split an answer"):
            if any(answer in prompt for answer in self.fail_claims):
                return 400
            return json.dumps({"claims": split_claims(prompt)})
        claims = listed_claims(prompt)
        if prompt.startswith("Check the claims"):
            return verdicts(
                claims, lambda c, i: factuality_label(c, prompt), leave_out=len(claims) > 1 and not repair
            )
        if prompt.startswith("Judge whether the claims an answer makes"):
            return verdicts(claims, lambda c, i: "NOT_RELEVANT" if "red car" in c.lower() else "RELEVANT")
        if prompt.startswith("Judge whether the claims of one answer"):
            seen: list[str] = []

            def coherence(claim: str, number: int) -> str:
                repeated = claim in seen
                seen.append(claim)
                return "REDUNDANT" if repeated else "CONSISTENT"

            return verdicts(claims, coherence)
        return 400

    def prompts(self, start: str) -> list[str]:
        """The first message of every conversation whose prompt starts with `start`."""
        return [text_of(chat[0]) for chat in self.chats if text_of(chat[0]).startswith(start)]
