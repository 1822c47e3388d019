"""What a page or a JSON reply shows of a sample: plain data, every text as given (the templates
escape it; scripts read it as JSON and set it as text)."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from vqakit.builders import evidence_hooks
from vqakit.schema import Passage, Sample, parse_clock, parse_trace
from vqakit.scoring import LETTERS
from vqakit.studio._media import subtitle_lines
from vqakit.studio._queue import QueueItem
from vqakit.studio._workspace import Workspace

_CLOCK = re.compile(r"(?<![\d:])(?:\d{1,2}:)?\d{1,2}:[0-5]\d(?:\.\d+)?(?!\d|:\d)")
_OBJECT = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:-[A-Za-z][A-Za-z0-9_]*)*-[0-9a-f]{16}(?![0-9a-zA-Z])")


def media_url(workspace: Workspace, relative: str) -> str:
    return f"/media/{workspace.key}/{quote(relative)}"


def segments(text: str, objects: set[str]) -> list[dict[str, Any]]:
    """A text cut into plain pieces, clock times (with their seconds: links that seek) and the
    ids of tracked objects (highlighted in their track's colour)."""
    marks = [(m.start(), m.end(), "time", m[0]) for m in _CLOCK.finditer(text)]
    marks += [(m.start(), m.end(), "object", m[0]) for m in _OBJECT.finditer(text)]
    found: list[dict[str, Any]] = []
    at = 0
    for start, end, kind, token in sorted(marks):
        if start < at:
            continue
        if start > at:
            found.append({"text": text[at:start]})
        if kind == "time":
            found.append({"text": token, "time": parse_clock(token)})
        else:
            found.append({"text": token, "object": token if token in objects else None})
        at = end
    if at < len(text):
        found.append({"text": text[at:]})
    return found


def video_view(workspace: Workspace, sample: Sample) -> dict[str, Any] | None:
    if not sample.videos:
        return None
    ref = sample.videos[0]
    return {
        "url": media_url(workspace, ref.path),
        "path": ref.path,
        "start_s": ref.start_s or 0.0,
        "end_s": ref.end_s,
    }


def tracks_view(sample: Sample) -> list[dict[str, Any]]:
    return [
        {
            "id": track.id,
            "label": track.label,
            "points": [{"t": p.time_s, "box": list(p.box)} for p in track.points if p.box is not None],
        }
        for track in sample.objects
        if track.video == 0
    ]


def _passage(passage: Passage) -> dict[str, Any]:
    return {"title": passage.title or passage.id, "lines": [{"text": passage.text}]}


def evidence_view(workspace: Workspace, sample: Sample) -> list[dict[str, Any]]:
    """What the builder used: facts, passages, clips, then each system's evidence hook."""
    benchmark = workspace.benchmark()
    found: list[dict[str, Any]] = []
    if sample.facts:
        found.append({"title": "Facts", "lines": [{"text": fact} for fact in sample.facts]})
    for passage_id in sample.gold_passages:
        passage = benchmark.passages.get(passage_id) if benchmark else None
        found.append(
            _passage(passage) if passage else {"title": passage_id, "lines": [{"text": "(not in corpus)"}]}
        )
    clips = []
    for clip_id in sample.gold_clips:
        clip = benchmark.clips.get(clip_id) if benchmark else None
        if clip is None:
            continue
        same = bool(sample.videos) and clip.video.path == sample.videos[0].path
        window = f"{clip.video.start_s or 0:g}-{clip.video.end_s:g}s" if clip.video.end_s else "whole video"
        clips.append(
            {
                "text": f"{clip.id} ({clip.video.path} {window}): {clip.description or ''}",
                "time": (clip.video.start_s or 0.0) if same else None,
            }
        )
    if clips:
        found.append({"title": "Gold clips", "lines": clips})
    for hook in evidence_hooks():
        for evidence in hook(workspace.root, sample):
            found.append(
                {
                    "title": evidence.title,
                    "lines": [
                        {"text": line.text, "time": line.start_s, "end": line.end_s}
                        for line in evidence.lines
                    ],
                }
            )
    return found


def sample_view(workspace: Workspace, sample: Sample, item: QueueItem | None = None) -> dict[str, Any]:
    """Everything review mode shows of a sample (gold included)."""
    objects = {track.id for track in sample.objects}
    extra = sample.metadata.model_dump(exclude_none=True)
    return {
        "id": sample.id,
        "question": sample.question,
        "options": [
            {"letter": LETTERS[i], "text": text, "gold": i == sample.answer}
            for i, text in enumerate(sample.choices or [])
        ],
        "answer": sample.answer_text(),
        "mcq": sample.is_mcq,
        "video": video_view(workspace, sample),
        "subtitles": subtitle_lines(workspace.root, sample),
        "trace": [
            {"number": step.number, "segments": segments(step.text, objects)}
            for step in (parse_trace(sample.reasoning) if sample.reasoning else [])
        ],
        "reasoning": sample.reasoning or "",
        "tracks": tracks_view(sample),
        "metadata": [
            (key, value if isinstance(value, str) else str(value)) for key, value in extra.items() if value
        ],
        "category": sample.metadata.category or "",
        "skills": list(sample.metadata.skills),
        "evidence": evidence_view(workspace, sample),
        "flags": item.flags if item else [],
        "drops": [
            {"stage": d.stage, "item": d.item, "reason": d.reason} for d in (item.drops if item else [])
        ],
        "wrong_in": item.wrong_in if item else [],
        "choices": list(sample.choices or []),
        "gold": sample.answer if sample.is_mcq else None,
    }


def clip_view(workspace: Workspace, sample: Sample) -> dict[str, Any] | None:
    """The video answer mode shows: the window's clip (time 0 is the window's start; `end_s`,
    its length, is set once the clip is cut), never the file or its name."""
    if not sample.videos:
        return None
    return {
        "url": f"/clip/{workspace.key}?sample={quote(sample.id)}",
        "path": "",
        "start_s": 0.0,
        "end_s": None,
    }


def blind_view(workspace: Workspace, sample: Sample, view: str, subtitles: bool) -> dict[str, Any]:
    """What answer mode shows: no gold, no reference, no other answer, no file name."""
    return {
        "id": sample.id,
        "question": sample.question,
        "options": [{"letter": LETTERS[i], "text": text} for i, text in enumerate(sample.choices or [])],
        "mcq": sample.is_mcq,
        "video": clip_view(workspace, sample) if view == "video" else None,
        "subtitles": subtitle_lines(workspace.root, sample) if subtitles else [],
        "asks_reasoning": bool(sample.reasoning),
    }
