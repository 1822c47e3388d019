"""What the InstructionBench builder used for a sample, shown to the people who review it
(`vqakit studio`): the step annotations of its clip (seekable), the four filters' verdicts and
reasons, and the checks of its options. Read from the benchmark folder's `build/` files."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from vqakit.builders import Evidence, EvidenceLine, register_evidence
from vqakit.schema import Sample

BUILD = "build"


@lru_cache(maxsize=16)
def _read(path: str, stamp: tuple[int, int]) -> tuple[dict[str, Any], ...]:
    records = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill: the build resumes and rewrites it
        if isinstance(record, dict):
            records.append(record)
    return tuple(records)


def _records(path: Path) -> tuple[dict[str, Any], ...]:
    if not path.is_file():
        return ()
    stat = path.stat()
    return _read(str(path), (stat.st_mtime_ns, stat.st_size))


def _steps(root: Path, clip_id: str) -> list[Evidence]:
    clip = next((c for c in _records(root / BUILD / "clip_steps.jsonl") if c.get("clip_id") == clip_id), None)
    if clip is None:
        return []
    lines = [
        EvidenceLine(
            "  " * int(step.get("level") or 0) + str(step.get("text")), step.get("start_s"), step.get("end_s")
        )
        for step in clip.get("steps") or []
    ]
    return [Evidence(f"Step annotations of clip {clip_id}: {clip.get('theme')}", lines)]


def _verdict(record: dict[str, Any]) -> str:
    outcome = "passed" if record.get("passed") else "FAILED"
    text = f"{record.get('name')}: {outcome} ({record.get('verdict')})"
    if record.get("reason"):
        text += f"; {record['reason']}"
    if record.get("answer"):
        text += f"; the filter model answered: {record['answer']}"
    return text


def _filters(root: Path, qa_id: str) -> list[Evidence]:
    lines = [
        EvidenceLine(_verdict(record))
        for record in _records(root / BUILD / "judgements.jsonl")
        if record.get("qa_id") == qa_id
    ]
    return [Evidence("Quality filters", lines)] if lines else []


def _options(root: Path, qa_id: str) -> list[Evidence]:
    design = next((d for d in _records(root / BUILD / "mcq_designs.jsonl") if d.get("qa_id") == qa_id), None)
    if design is None:
        return []
    lines = [
        EvidenceLine(f"designs: {design.get('attempts')}" + (" (given up)" if design.get("given_up") else ""))
    ]
    lines += [EvidenceLine(str(entry)) for entry in design.get("history") or []]
    for check in design.get("checks") or []:
        right = "right" if check.get("with_info_correct") else "wrong"
        blind = "right" if check.get("without_info_correct") else "wrong"
        lines.append(
            EvidenceLine(
                f"{check.get('model')}: with the annotations {check.get('with_info')!r} ({right}); "
                f"without {check.get('without_info')!r} ({blind})"
            )
        )
    return [Evidence("Option checks", lines)]


@register_evidence
def builder_evidence(root: Path, sample: Sample) -> list[Evidence]:
    """The clip's steps, the filters' verdicts and (MCQ) the option checks of a built sample."""
    extra = sample.metadata.model_extra or {}
    qa_id, clip_id = extra.get("qa_id"), extra.get("clip_id")
    if not isinstance(qa_id, str) or not (root / BUILD).is_dir():
        return []
    found = _steps(root, clip_id) if isinstance(clip_id, str) else []
    found += _filters(root, qa_id)
    if sample.choices is not None:
        found += _options(root, qa_id)
    return found
