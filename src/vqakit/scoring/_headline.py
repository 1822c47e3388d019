"""The headline numbers of a run: one definition, read by every surface (the `eval` line,
report.html, results.json, `vqakit export`, `compare`, `table` and `runs`).

- **MCQ accuracy** (`mcq`): the share of scored multiple-choice samples whose option (read by the
  rules, or by the `extract` judge where the rules abstained) is the gold one; an abstention is
  wrong, a failed sample is left out (counted under `errors`) unless `--errors-as-wrong`.
- **open-ended accuracy** (`open_ended`): the share of open-ended samples a correctness judge
  (`--judge open=...`) called right, over those it judged.
- **judge scores**: each judge that declares one (MovieRecapsQA's factuality, relevance and
  coherence, 0-5; Minerva-Ego's rubric criteria, 0-2) adds its mean over the answers it scored.
- **the benchmark's own headline** (`official`): where the card declares the benchmark's table
  (`official`) and its headline is not the pooled MCQ accuracy but the mean of per-key
  accuracies (MLVU's M-Avg, the mean of its task accuracies), that number follows MCQ accuracy.
- **overall** (`overall` in results.json, the last column of `vqakit table`): the accuracy over
  every scored sample, defined only when the run scored one kind of sample (MCQ or open-ended),
  where it equals that kind's accuracy. A run that scored both kinds has no overall (null): an
  option picked among five and a judge's yes/no are not one measure.

An entry of `results.json["headline"]`: `{key, label, unit: "accuracy" | "score", n, value,
ci95, scale, counted[, interval, clusters]}` (`scale` [low, high] for scores; `counted` names
what `n` counts; `interval` the kind of interval and `clusters` the number of videos it was
clustered by, where the questions share videos: see `_intervals`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vqakit.scoring._intervals import CLUSTERED_KINDS, SMALL_GROUP
from vqakit.scoring._judges import judges
from vqakit.scoring._official import official_headline

ACCURACIES = (
    ("mcq", "MCQ accuracy", "samples"),
    ("open_ended", "open-ended accuracy", "judged"),
)


def overall_summary(mcq: dict[str, Any], open_ended: dict[str, Any], pooled: dict[str, Any]) -> dict | None:
    """results.json's `overall`: the pooled accuracy when at most one kind was scored, else None."""
    return None if mcq["n"] and open_ended["n"] else pooled


def _interval_kind(summary: dict[str, Any]) -> dict[str, Any]:
    """The kind of a summary's interval, and the clusters it was drawn over, where it says."""
    return {key: summary[key] for key in ("interval", "clusters") if summary.get(key) is not None}


def headline(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The headline entries of a run's results, in order: MCQ accuracy, open-ended accuracy
    (each where the run scored such samples), then the judges' declared scores."""
    found = []
    for key, label, counted in ACCURACIES:
        summary = results.get(key) or {}
        if summary.get("n"):
            found.append(
                {"key": key, "label": label, "unit": "accuracy", "n": summary["n"],
                 "value": summary["accuracy"], "ci95": list(summary["ci95"]), "scale": [0.0, 1.0],
                 "counted": counted, **_interval_kind(summary)}
            )  # fmt: skip
    official = official_headline(results)
    if official is not None:
        found.append(
            {"key": "official", "label": f"{official['name']} (mean of {len(official['keys'])} accuracies)",
             "unit": "accuracy", "n": official["n"], "value": official["accuracy"],
             "ci95": list(official["ci95"]), "scale": [0.0, 1.0], "counted": "samples"}
        )  # fmt: skip
    for name, judge in judges().items():
        summary = results.get(name)
        if summary is None:
            continue
        for key, label, mean in judge.headline(summary):
            if mean.get("n") and mean.get("mean") is not None:
                found.append(
                    {"key": key, "label": label, "unit": "score", "n": mean["n"], "value": mean["mean"],
                     "ci95": list(mean["ci95"]), "scale": list(mean.get("scale") or judge.scale),
                     "counted": "answers", **_interval_kind(mean)}
                )  # fmt: skip
    return found


def headline_of(results: dict[str, Any]) -> list[dict[str, Any]]:
    """A run's stored headline; derived from its results for runs made before it was stored."""
    stored = results.get("headline")
    return stored if isinstance(stored, list) else headline(results)


def number_text(entry: dict[str, Any], value: float | None = None) -> str:
    """A headline value as every surface prints it: `33.3%` for accuracies, `3.10` for scores."""
    value = entry["value"] if value is None else value
    if value is None:
        return "n/a"
    return f"{100 * value:.1f}%" if entry["unit"] == "accuracy" else f"{value:.2f}"


def interval_text(entry: dict[str, Any]) -> str:
    """`19.4-50.0` (percent points for accuracies) or `2.80-3.40`; empty without an interval."""
    low, high = entry.get("ci95") or (None, None)
    if low is None or high is None:
        return ""
    if entry["unit"] == "accuracy":
        return f"{100 * low:.1f}-{100 * high:.1f}"
    return f"{low:.2f}-{high:.2f}"


def interval_kind_text(entry: dict[str, Any]) -> str:
    """What an interval accounts for: `clustered by video: 8 clusters` when its questions share
    videos, else `per question` (every question on a video of its own, or a summary that does
    not say)."""
    if entry.get("interval") in CLUSTERED_KINDS and entry.get("clusters"):
        return f"clustered by video: {entry['clusters']} clusters"
    return "per question"


def intervals_note(results: Iterable[dict[str, Any]]) -> str:
    """What the accuracy intervals of these runs' results account for, in one sentence (under a
    report's breakdowns or a table)."""
    kinds: set[str | None] = set()
    for found in results:
        summaries = [found.get("mcq") or {}, found.get("open_ended") or {}]
        for field in ("groups", "open_ended_groups"):
            summaries += [v for buckets in (found.get(field) or {}).values() for v in buckets.values()]
        kinds |= {summary.get("interval") for summary in summaries}
    if kinds & set(CLUSTERED_KINDS):
        return (
            "95% intervals are clustered by video where questions share a video (questions on one "
            "video are not independent): whole videos are resampled (cluster bootstrap), or below "
            f"{SMALL_GROUP} videos the interval is taken at the effective sample size (questions "
            "over the design effect)."
        )
    return f"95% intervals per question: Wilson's below {SMALL_GROUP} samples, else a bootstrap."


def headline_text(entry: dict[str, Any]) -> str:
    """`MCQ accuracy 33.3% [95% CI 19.4-50.0, clustered by video: 8 clusters] on 36 samples`:
    one entry, in words (`interval_kind_text` says which interval)."""
    interval = interval_text(entry)
    scale = "" if entry["unit"] == "accuracy" else f" (of {entry['scale'][0]:g}-{entry['scale'][1]:g})"
    ci = f" [95% CI {interval}, {interval_kind_text(entry)}]" if interval else ""
    return f"{entry['label']} {number_text(entry)}{scale}{ci} on {entry['n']} {entry['counted']}"


def headline_short(entry: dict[str, Any]) -> str:
    """`MCQ 33.3% (36)`: one entry for a listing's column."""
    short = {"mcq": "MCQ", "open_ended": "open"}.get(entry["key"], entry["label"])
    return f"{short} {number_text(entry)} ({entry['n']})"
