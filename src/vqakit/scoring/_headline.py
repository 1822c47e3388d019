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
ci95, scale, counted}` (`scale` [low, high] for scores; `counted` names what `n` counts).
"""

from __future__ import annotations

from typing import Any

from vqakit.scoring._judges import judges
from vqakit.scoring._official import official_headline

ACCURACIES = (
    ("mcq", "MCQ accuracy", "samples"),
    ("open_ended", "open-ended accuracy", "judged"),
)


def overall_summary(mcq: dict[str, Any], open_ended: dict[str, Any], pooled: dict[str, Any]) -> dict | None:
    """results.json's `overall`: the pooled accuracy when at most one kind was scored, else None."""
    return None if mcq["n"] and open_ended["n"] else pooled


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
                 "counted": counted}
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
                     "counted": "answers"}
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


def headline_text(entry: dict[str, Any]) -> str:
    """`MCQ accuracy 33.3% [95% CI 19.4-50.0] on 36 samples`: one entry, in words."""
    interval = interval_text(entry)
    scale = "" if entry["unit"] == "accuracy" else f" (of {entry['scale'][0]:g}-{entry['scale'][1]:g})"
    ci = f" [95% CI {interval}]" if interval else ""
    return f"{entry['label']} {number_text(entry)}{scale}{ci} on {entry['n']} {entry['counted']}"


def headline_short(entry: dict[str, Any]) -> str:
    """`MCQ 33.3% (36)`: one entry for a listing's column."""
    short = {"mcq": "MCQ", "open_ended": "open"}.get(entry["key"], entry["label"])
    return f"{short} {number_text(entry)} ({entry['n']})"
