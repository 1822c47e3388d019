"""What the EgoFact builder used for a question, shown to the people who review it (`vqakit
studio`): the target event and the anchor event of a temporal question (at their times, which
seek the player) and, for a two-hop question, the object-passage pairs behind its options with
the factual and counterfactual statement of each."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vqakit.builders import Evidence, EvidenceLine, register_evidence
from vqakit.schema import Sample
from vqakit.scoring import LETTERS


def _event_text(event: Any) -> str:
    if isinstance(event, dict):
        for key in ("rewritten", "text", "action"):
            if isinstance(event.get(key), str):
                return event[key]
    return json.dumps(event, ensure_ascii=False)


def _events(sample: Sample, extra: dict[str, Any]) -> list[EvidenceLine]:
    start = (sample.videos[0].start_s or 0.0) if sample.videos else 0.0
    lines = []
    for key, title in (("event", "target event"), ("anchor", "anchor event")):
        if extra.get(key) is None:
            continue
        offset = extra.get(f"{key}_time_s")
        at = start + offset if isinstance(offset, int | float) else None
        where = f" ({extra['direction']} the anchor)" if key == "event" and extra.get("direction") else ""
        lines.append(EvidenceLine(f"{title}{where}: {_event_text(extra[key])}", at, at))
    return lines


def _option(sample: Sample, index: Any) -> str:
    if isinstance(index, int) and sample.choices and 0 <= index < len(sample.choices):
        return f"{LETTERS[index]}. {sample.choices[index]}"
    return f"(option {index!r} is not one of the options)"


@register_evidence
def egofact_evidence(root: Path, sample: Sample) -> list[Evidence]:
    """The events a question is about, and the two-hop pairs behind its options."""
    extra = sample.metadata.model_extra or {}
    found = []
    events = _events(sample, extra)
    if events:
        found.append(Evidence("Events the question was written from", events))
    pairs = extra.get("pairs")
    if isinstance(pairs, list) and pairs:
        lines = []
        for pair in pairs:
            if isinstance(pair, dict):
                factual = _option(sample, pair.get("factual"))
                counterfactual = _option(sample, pair.get("counterfactual"))
                head = f"{pair.get('object')} (passage {pair.get('passage')})"
                lines.append(EvidenceLine(f"{head}: factual {factual} | counterfactual {counterfactual}"))
        found.append(Evidence("Two-hop pairs: each option's object, passage and statement", lines))
    return found
