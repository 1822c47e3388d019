"""Report sections of retrieval runs: retrieval success, sufficiency, chosen statements, chosen
letters (each pooled, then per question family); and, in each sample card, what the sample
retrieved and the frames of the clip it described."""

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

_SPLITS = ["all", "n", "answered correctly", "n", "answered wrongly", "n"]
_OUTCOMES = {"all": "all", "correct": "answered correctly", "wrong": "answered wrongly"}


def _rate_row(label: str, *parts: dict[str, Any]) -> list[str]:
    """A label, then the rate and n of each `{n, rate}` part (all, correct, wrong)."""
    return [label] + [cell for part in parts for cell in (percent(part["rate"]), str(part["n"]))]


def _scopes(results: dict[str, Any], key: str) -> list[tuple[str, Any]]:
    """(scope, entry) of one diagnostic: pooled ("" scope) first, then each question family."""
    scopes = [("", results[key])] if key in results else []
    for name, family in (results.get("by_family") or {}).items():
        if key in family:
            scopes.append((name, family[key]))
    return scopes


def _label(scope: str, name: str) -> str:
    return f"{scope}: {name}" if scope else name


def _section(title: str, columns: list[str], rows: list[list[str]], note: str) -> Section | None:
    """A table of pooled rows, then per-family rows ("<family>: ..."); None without rows."""
    if not rows:
        return None
    if any(": " in row[0] for row in rows):
        note += "; pooled, then per question family"
    return Section(title, Table(columns, rows), note)


def _retrieval_section(results: dict[str, Any]) -> Section | None:
    rows = [
        _rate_row(_label(scope, name), entry["all"], entry["correct"], entry["wrong"])
        for scope, corpora in _scopes(results, "retrieval")
        for name, entry in corpora.items()
    ]
    return _section(
        "Retrieval success",
        ["corpus", *_SPLITS],
        rows,
        "share of samples whose gold item is among those retrieved, over all samples and over those "
        "answered correctly and wrongly",
    )


def _sufficiency_section(results: dict[str, Any]) -> Section | None:
    pooled = results.get("sufficiency")
    scopes = [(scope, entry) for scope, entry in _scopes(results, "sufficiency") if "rate" in entry]
    if not isinstance(pooled, dict) or "rate" not in pooled or not scopes:
        return None
    rows = [
        _rate_row(_label(scope, "sufficient"), entry, entry["correct"], entry["wrong"])
        for scope, entry in scopes
    ]
    return _section(
        "Clip understanding (sufficiency judge)",
        ["", *_SPLITS],
        rows,
        "samples whose gold clip was retrieved: share whose clip description contains the question's "
        "anchor event, as judged from the question stem without options",
    )


def _statements_section(results: dict[str, Any]) -> Section | None:
    rows = [
        [
            _label(scope, name.replace("_", " ")),
            str(entry["n"]),
            str(entry["factual"]),
            str(entry["counterfactual"]),
            percent(entry["factual_share"]),
            percent(entry["right_object_share"]),
        ]
        for scope, splits in _scopes(results, "statements")
        for name, entry in splits.items()
        if entry["n"]
    ]
    return _section(
        "Two-hop: chosen statements",
        ["samples", "n", "factual", "counterfactual", "factual share", "right object"],
        rows,
        "whether the chosen option is the factual or the counterfactual statement of its "
        "object-passage pair, and whether it is about the object in the video",
    )


def _letter_rows(
    scope: str, what: str, outcomes: dict[str, dict[str, int]], letters: list[str]
) -> list[list[str]]:
    rows = []
    for outcome, label in _OUTCOMES.items():
        counts = outcomes[outcome]
        n = sum(counts.values())
        if n:
            name = _label(scope, f"{what}, {label}" if what else label)
            rows.append([name, str(n), *(percent(counts.get(letter, 0) / n) for letter in letters)])
    return rows


def _letters_section(results: dict[str, Any]) -> Section | None:
    scopes = _scopes(results, "letters_by_outcome")
    letters = sorted({letter for _, entry in scopes for counts in entry.values() for letter in counts})
    rows = [row for scope, entry in scopes for row in _letter_rows(scope, "", entry, letters)]
    counted = sum((results.get("letters_by_outcome") or {}).get("all", {}).values())
    answered = (results.get("counts") or {}).get("answered", counted)
    note = (
        "share of each chosen option letter among the samples answered, and among those answered "
        "correctly and wrongly"
    )
    if rows and counted < answered:  # other benchmarks' questions in the run have no family
        note += f"; over the {counted} of {answered} answered samples that have an EgoFact question family"
        rows = [[f"{row[0]} (with a family)" if row[0] == "all" else row[0], *row[1:]] for row in rows]
    return _section("Chosen letters", ["samples", "n", *letters], rows, note)


def _statement_letters_section(results: dict[str, Any]) -> Section | None:
    scopes = _scopes(results, "statement_letters")
    # over the samples whose gold passage was retrieved when the method retrieves passages
    split = "passage_retrieved" if any("passage_retrieved" in splits for _, splits in scopes) else "all"
    shown = [(scope, splits[split]) for scope, splits in scopes if split in splits]
    letters = sorted({letter for _, entry in shown for counts in entry.values() for letter in counts})
    what = "passage retrieved" if split == "passage_retrieved" else ""
    rows = [row for scope, entry in shown for row in _letter_rows(scope, what, entry, letters)]
    return _section(
        "Two-hop: chosen statement by pair",
        ["samples", "n", *letters],
        rows,
        "the chosen option placed in the unshuffled layout of the three object-passage pairs: A, C, E "
        "are counterfactual and B, D, F factual statements, E/F is the pair of the object in the "
        "video (so a correct answer is always F); over the samples whose gold passage was retrieved "
        "when the method retrieves passages",
    )


@register_section
def retrieval_sections(results: dict[str, Any]) -> list[Section]:
    built = (
        _retrieval_section(results),
        _sufficiency_section(results),
        _statements_section(results),
        _statement_letters_section(results),
        _letters_section(results),
    )
    return [section for section in built if section is not None]


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
    from vqakit.systems.egofact.rag import (  # a method's module: imported when used
        clip_strip,
        legacy_clip_strip,
    )

    times = prediction.retrieval["frames_s"][shown]
    for strip in (clip_strip(sample.id, shown), legacy_clip_strip(sample.id, shown)):
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
    if trace.get("keywords"):
        lines.append("keywords: " + ", ".join(trace["keywords"]))
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
