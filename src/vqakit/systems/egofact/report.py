"""Report sections of retrieval runs: retrieval success, sufficiency, chosen statements; and, in
each sample card, what the sample retrieved and the frames of the clip it described."""

from __future__ import annotations

from typing import Any

from vqakit.report import (
    SampleDetail,
    Section,
    ShownFrames,
    Table,
    percent,
    register_sample_detail,
    register_section,
    register_shown_frames,
)
from vqakit.schema import Benchmark, Prediction, Sample
from vqakit.systems.egofact.rag import clip_strip

_SPLITS = ["all", "n", "answered correctly", "n", "answered wrongly", "n"]


def _rate_cells(entry: dict[str, Any]) -> list[str]:
    return [percent(entry["rate"]), str(entry["n"])]


@register_section
def retrieval_sections(results: dict[str, Any]) -> list[Section]:
    sections: list[Section] = []
    if "retrieval" in results:
        rows = [
            [name] + [cell for split in ("all", "correct", "wrong") for cell in _rate_cells(entry[split])]
            for name, entry in results["retrieval"].items()
        ]
        sections.append(
            Section(
                "Retrieval success",
                Table(["corpus", *_SPLITS], rows),
                "share of samples whose gold item is among those retrieved, over all samples and over those "
                "answered correctly and wrongly",
            )
        )
    if isinstance(results.get("sufficiency"), dict) and "rate" in results["sufficiency"]:
        entry = results["sufficiency"]
        cells = [cell for part in (entry, entry["correct"], entry["wrong"]) for cell in _rate_cells(part)]
        sections.append(
            Section(
                "Clip understanding (sufficiency judge)",
                Table(["", *_SPLITS], [["sufficient", *cells]]),
                "samples whose gold clip was retrieved: share whose clip description contains the question's "
                "anchor event, as judged from the question stem without options",
            )
        )
    if "statements" in results:
        rows = [
            [
                name.replace("_", " "),
                str(entry["n"]),
                str(entry["factual"]),
                str(entry["counterfactual"]),
                percent(entry["factual_share"]),
                percent(entry["right_object_share"]),
            ]
            for name, entry in results["statements"].items()
            if entry["n"]
        ]
        sections.append(
            Section(
                "Two-hop: chosen statements",
                Table(["samples", "n", "factual", "counterfactual", "factual share", "right object"], rows),
                "whether the chosen option is the factual or the counterfactual statement of its "
                "object-passage pair, and whether it is about the object in the video",
            )
        )
    return sections


def shown_clip(sample: Sample, prediction: Prediction) -> str | None:
    """The clip whose described frames a report shows: the gold clip when it was retrieved and
    described, else the best-ranked described clip."""
    trace = prediction.retrieval or {}
    per_clip = trace.get("frames_s") or {}
    return next((c for c in sample.gold_clips if per_clip.get(c)), None) or next(
        (c for c in trace.get("clips", []) if per_clip.get(c)), None
    )


@register_shown_frames
def clip_frames(benchmark: Benchmark, sample: Sample, prediction: Prediction) -> ShownFrames | None:
    """Retrieval runs show the frames of the gold clip when it was retrieved, else the top clip's:
    the strip the run kept of them, or the clip's video at the times described."""
    if prediction.retrieval is None:
        return None
    shown = shown_clip(sample, prediction)
    if shown is None or shown not in benchmark.clips:
        return None
    times = prediction.retrieval["frames_s"][shown]
    strip = clip_strip(sample.id, shown)
    if strip in prediction.images:
        return ShownFrames(times, strip=strip)
    return ShownFrames(times, video=benchmark.clips[shown].video.path)


@register_sample_detail
def retrieval_detail(sample: Sample, prediction: Prediction) -> SampleDetail | None:
    """What one sample retrieved: clips (gold marked, with windows), passages, localization, and
    the clip descriptions the answer was based on."""
    trace = prediction.retrieval
    if not trace:
        return None
    from vqakit.models import clock

    lines = []
    if trace.get("query"):
        lines.append(f"query: {trace['query']}")
    if trace.get("localization"):
        where = trace["localization"]
        lines.append(f"localized on: {where.get('description')} ({where.get('position')})")
    windows = trace.get("windows") or {}
    clips = []
    for clip in trace.get("clips", []):
        label = clip + (" ✓ gold" if clip in sample.gold_clips else "")
        if clip in windows:
            start, end = windows[clip]
            label += f" {clock(start)}–{clock(end)}"
        clips.append(label)
    if clips:
        lines.append("clips: " + ", ".join(clips))
    shown = shown_clip(sample, prediction)
    if shown is not None:
        lines.append(f"frames above: {shown}" + (" (gold)" if shown in sample.gold_clips else ""))
    passages = [
        passage + (" ✓ gold" if passage in sample.gold_passages else "")
        for passage in trace.get("passages", [])
    ]
    if passages:
        lines.append("passages: " + ", ".join(passages))
    errors = trace.get("step_errors") or {}
    if errors:
        lines.append("step errors: " + "; ".join(f"{k}: {v}" for k, v in errors.items()))
    captions = list((trace.get("captions") or {}).items())
    return SampleDetail(lines, "clip descriptions" if captions else "", captions)
