"""Report sections of retrieval runs: retrieval success, sufficiency, chosen statements, and what
each sample retrieved."""

from __future__ import annotations

import html
from typing import Any

from vqakit.schema import Prediction, Sample


def _e(text: Any) -> str:
    return html.escape(str(text))


def _percent(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _rate_cells(entry: dict[str, Any]) -> str:
    return f"<td class='num'>{_percent(entry['rate'])}</td><td class='num'>{entry['n']}</td>"


def retrieval_sections(results: dict[str, Any]) -> list[str]:
    body: list[str] = []
    if "retrieval" in results:
        rows = "".join(
            f"<tr><td>{_e(name)}</td>"
            + "".join(_rate_cells(entry[split]) for split in ("all", "correct", "wrong"))
            + "</tr>"
            for name, entry in results["retrieval"].items()
        )
        body.append(
            "<h2>Retrieval success</h2><p class='meta'>share of samples whose gold item is among those "
            "retrieved, over all samples and over those answered correctly and wrongly</p>"
            "<table><tr><th>corpus</th><th class='num'>all</th><th class='num'>n</th>"
            "<th class='num'>answered correctly</th><th class='num'>n</th>"
            "<th class='num'>answered wrongly</th><th class='num'>n</th></tr>" + rows + "</table>"
        )
    if "sufficiency" in results:
        entry = results["sufficiency"]
        body.append(
            "<h2>Clip understanding (sufficiency judge)</h2><p class='meta'>samples whose gold clip was "
            "retrieved: share whose clip description contains the question's anchor event, as judged "
            "from the question stem without options</p><table><tr><th></th><th class='num'>all</th>"
            "<th class='num'>n</th><th class='num'>answered correctly</th><th class='num'>n</th>"
            "<th class='num'>answered wrongly</th><th class='num'>n</th></tr><tr><td>sufficient</td>"
            + "".join(_rate_cells(part) for part in (entry, entry["correct"], entry["wrong"]))
            + "</tr></table>"
        )
    if "statements" in results:
        rows = "".join(
            f"<tr><td>{_e(name.replace('_', ' '))}</td><td class='num'>{entry['n']}</td>"
            f"<td class='num'>{entry['factual']}</td><td class='num'>{entry['counterfactual']}</td>"
            f"<td class='num'>{_percent(entry['factual_share'])}</td>"
            f"<td class='num'>{_percent(entry['right_object_share'])}</td></tr>"
            for name, entry in results["statements"].items()
            if entry["n"]
        )
        body.append(
            "<h2>Two-hop: chosen statements</h2><p class='meta'>whether the chosen option is the factual "
            "or the counterfactual statement of its object-passage pair, and whether it is about the "
            "object in the video</p><table><tr><th>samples</th><th class='num'>n</th>"
            "<th class='num'>factual</th><th class='num'>counterfactual</th>"
            "<th class='num'>factual share</th>"
            "<th class='num'>right object</th></tr>" + rows + "</table>"
        )
    return body


def shown_clip(sample: Sample, prediction: Prediction) -> str | None:
    """The clip whose described frames a report shows: the gold clip when it was retrieved and
    described, else the best-ranked described clip."""
    trace = prediction.retrieval or {}
    per_clip = trace.get("frames_s") or {}
    return next((c for c in sample.gold_clips if per_clip.get(c)), None) or next(
        (c for c in trace.get("clips", []) if per_clip.get(c)), None
    )


def retrieval_detail(sample: Sample, prediction: Prediction) -> str:
    """What one sample retrieved: clips (gold marked, with windows), passages, localization, and the
    clip descriptions the answer was based on."""
    trace = prediction.retrieval
    if not trace:
        return ""
    from vqakit.models import clock

    parts = []
    if trace.get("query"):
        parts.append(f"query: {_e(trace['query'])}")
    if trace.get("localization"):
        where = trace["localization"]
        parts.append(f"localized on: {_e(where.get('description'))} ({_e(where.get('position'))})")
    windows = trace.get("windows") or {}
    clips = []
    for clip in trace.get("clips", []):
        label = _e(clip) + (" ✓ gold" if clip in sample.gold_clips else "")
        if clip in windows:
            start, end = windows[clip]
            label += f" {clock(start)}–{clock(end)}"
        clips.append(label)
    if clips:
        parts.append("clips: " + ", ".join(clips))
    shown = shown_clip(sample, prediction)
    if shown is not None:
        parts.append(f"frames above: {_e(shown)}" + (" (gold)" if shown in sample.gold_clips else ""))
    passages = [
        _e(passage) + (" ✓ gold" if passage in sample.gold_passages else "")
        for passage in trace.get("passages", [])
    ]
    if passages:
        parts.append("passages: " + ", ".join(passages))
    captions = "".join(
        f"<p><b>{_e(clip)}</b><br>{_e(text)}</p>" for clip, text in (trace.get("captions") or {}).items()
    )
    errors = trace.get("step_errors") or {}
    if errors:
        parts.append("step errors: " + "; ".join(f"{_e(k)}: {_e(v)}" for k, v in errors.items()))
    details = f"<details><summary>clip descriptions</summary>{captions}</details>" if captions else ""
    return f'<div class="meta">{"<br>".join(parts)}</div>{details}'
