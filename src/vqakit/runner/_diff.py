"""Why two runs' numbers differ (`vqakit diff`): the settings that differ, in words, then the
samples whose outcome flipped, grouped by what differed for them.

Everything is read from the two run folders (config.yaml, manifest.json, predictions.jsonl,
scores.jsonl, results.json): the benchmark is not opened, so runs made on other machines, or
imported (`vqakit import movierecapsqa-answers`), compare as they are.

A sample's outcome is its score: right, wrong (an abstention is wrong), or not scored (failed,
unscored), and the score of each judge that grades answers (a 0-5 factuality, a rubric). An
outcome that differs has one cause, the first of these in the order a sample goes through a run
that can explain it: what was sent (3-6) only where the reply differs (the same reply to other
frames flipped because of how it was read or judged, not because of the frames):

1. `failed in one run`: the sample ended in an error in one run (or in both, of other kinds);
2. `different gold answer`: the benchmark's answer to it differs;
3. `different retrieval`: a retrieval method found or showed other clips or passages;
4. `different frames sent`: other frame times, or another cut of the video;
5. `different pixels sent`: the same frame times at another size, encoding or with other marks
   drawn (told apart by the frames' identity, which names the video's content, the frame
   numbers, the resize and the encoding);
6. `different prompt text`: the text of the request differs (prompt, options, subtitles);
7. `different reply`: the same request, as far as the run records it, got another reply;
8. `different choice without a reply`: neither run has a reply to read (a baseline such as
   `random`, a method that picks an option itself) and the options picked differ;
9. `different reading of the same reply`: the same reply read as another option, or as none;
10. `different judgment of the same reply`: a judge said otherwise of the same reply;
11. `scored differently`: nothing above differs (e.g. failures counted as wrong in one run).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from vqakit.runner._diff_settings import CATEGORIES, differing_settings
from vqakit.runs import RunFolder
from vqakit.schema import Prediction
from vqakit.scoring import headline_of, judges

CAUSES = (
    "failed in one run",
    "different gold answer",
    "different retrieval",
    "different frames sent",
    "different pixels sent",
    "different prompt text",
    "different reply",
    "different choice without a reply",
    "different reading of the same reply",
    "different judgment of the same reply",
    "scored differently",
)
IDENTITY_STRIPS = "frames/sent-"  # strips named by the identity of the frames they show


def _graded(row: dict[str, Any]) -> dict[str, Any]:
    """The scores of the judges that grade answers, as the score row holds them."""
    return {name: row[name] for name, judge in judges().items() if judge.grades and name in row}


def outcome(row: dict[str, Any] | None) -> dict[str, Any]:
    """A sample's outcome from its score row: `{status, correct, graded}`."""
    if row is None:
        return {"status": "not scored", "correct": None, "graded": {}}
    return {"status": row["status"], "correct": row.get("correct"), "graded": _graded(row)}


def outcome_text(result: dict[str, Any]) -> str:
    """`right`, `wrong`, `abstained`, `error: timeout`, `unscored ...`, then graded scores."""
    if result["correct"] is True:
        text = "right"
    elif result["correct"] is False:
        text = "abstained" if result["status"] == "abstained" else "wrong"
    else:
        text = result["status"]
    scores = ", ".join(f"{name} {value}" for name, value in result["graded"].items())
    return f"{text} ({scores})" if scores else text


def _strip_digest(run: RunFolder, images: list[str]) -> list[str]:
    """What the frames sent were, to compare across runs: identity-named strips by name; others
    by their bytes (a strip kept per sample, named by the sample), or by name when missing."""
    found = []
    for image in images:
        if image.startswith(IDENTITY_STRIPS):
            found.append(image)
            continue
        path = run.path / image
        found.append(hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else image)
    return found


def _frames_text(prediction: Prediction) -> str:
    times = prediction.frames_s
    if prediction.video:
        return "video sent (" + ", ".join(f"{key} {value}" for key, value in prediction.video.items()) + ")"
    if not times:
        return "no frames"
    return f"{len(times)} frames at {times[0]:g}-{times[-1]:g} s"


def _short(text: str | None, width: int = 60) -> str:
    if text is None:
        return "none"
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def _reading(prediction: Prediction, row: dict[str, Any] | None) -> str:
    chosen = (row or {}).get("chosen")
    how = (row or {}).get("extracted_by") or prediction.extraction or "rules"
    return (
        f"read as {chosen} ({how})" if chosen else f"no option read ({prediction.extraction or 'abstained'})"
    )


def flip_cause(
    pair: tuple[Prediction, Prediction],
    rows: tuple[dict[str, Any] | None, dict[str, Any] | None],
    strips: tuple[list[str], list[str]],
) -> tuple[str, str]:
    """Why one sample's outcome differs between A and B: (cause, detail in words)."""
    (a, b), (row_a, row_b) = pair, rows
    if a.error is not None or b.error is not None:
        kinds = [f"error {p.error.type}" if p.error is not None else "answered" for p in pair]
        return CAUSES[0], f"{kinds[0]} in A, {kinds[1]} in B"
    gold = [(row or {}).get("gold") for row in rows]
    if None not in gold and gold[0] != gold[1]:
        return CAUSES[1], f"gold {gold[0]} in A, {gold[1]} in B"
    if a.reply != b.reply or a.reasoning != b.reasoning:  # the cause is in what was sent, if anywhere
        if a.retrieval != b.retrieval:
            return CAUSES[2], "retrieved or shown clips and passages differ"
        if a.frames_s != b.frames_s or a.video != b.video:
            return CAUSES[3], f"{_frames_text(a)} in A, {_frames_text(b)} in B"
        if strips[0] != strips[1]:
            return CAUSES[4], "the same frame times, other pixels (size, encoding, video content or marks)"
        if a.prompt != b.prompt:
            return CAUSES[5], "the text of the request differs"
        return CAUSES[6], f"{_short(a.reply)} in A, {_short(b.reply)} in B"
    chosen = [(row or {}).get("chosen") for row in rows]
    if chosen[0] != chosen[1] or a.choice != b.choice:
        if a.reply is None and b.reply is None:  # nothing was read: the method picked itself
            picked = [_picked(p, row) for p, row in zip(pair, rows, strict=True)]
            return CAUSES[7], f"{picked[0]} by {a.method} in A, {picked[1]} by {b.method} in B"
        return CAUSES[8], f"{_reading(a, row_a)} in A, {_reading(b, row_b)} in B"
    judged = [outcome(row) for row in rows]
    raw = [(row or {}).get("judge_raw") for row in rows]
    if raw[0] != raw[1]:
        return CAUSES[9], f"the judge said {_short(raw[0], 40)} in A, {_short(raw[1], 40)} in B"
    if judged[0]["graded"] != judged[1]["graded"]:
        return CAUSES[9], "the grading judges scored it differently"
    return CAUSES[10], f"{judged[0]['status']} in A, {judged[1]['status']} in B"


def _picked(prediction: Prediction, row: dict[str, Any] | None) -> str:
    chosen = (row or {}).get("chosen")
    chosen = chosen if chosen is not None else prediction.choice
    return f"picked {chosen}" if chosen is not None else "picked none"


def _sent_differences(
    pair: tuple[Prediction, Prediction], strips: tuple[list[str], list[str]]
) -> dict[str, bool]:
    a, b = pair
    return {
        "retrieval": a.retrieval != b.retrieval,
        "frames": a.frames_s != b.frames_s or a.video != b.video,
        "pixels": a.frames_s == b.frames_s and a.video == b.video and strips[0] != strips[1],
        "prompt": a.prompt != b.prompt,
        "reply": a.reply != b.reply,
        "failed": (a.error is None) != (b.error is None),
    }


def _run_summary(run: RunFolder) -> dict[str, Any]:
    config = run.config
    return {
        "run": str(run.path),
        "method": config.get("method"),
        "model": config.get("model"),
        "headline": headline_of(run.results),
    }


def diff_runs(run_a: str | Path, run_b: str | Path) -> dict[str, Any]:
    """Why the numbers of two run folders differ: `{a, b, headline, settings, locations,
    unrecorded, samples, sent, flipped}` (see the module docstring; `vqakit diff --json` prints
    it)."""
    a, b = RunFolder(run_a), RunFolder(run_b)
    settings = differing_settings(a, b)
    # a damaged line of either run's predictions or scores is a BadLogLines naming it
    predictions_a, predictions_b = a.predictions(), b.predictions()
    scores_a, scores_b = a.scores(), b.scores()
    # in sample id order: a run's predictions.jsonl is in the order its samples finished
    shared = sorted(sample_id for sample_id in predictions_a if sample_id in predictions_b)
    sent = dict.fromkeys(("retrieval", "frames", "pixels", "prompt", "reply", "failed"), 0)
    by_cause: dict[str, list[dict[str, Any]]] = {}
    right_a = right_b = other = 0
    for sample_id in shared:
        pair = predictions_a[sample_id], predictions_b[sample_id]
        rows = scores_a.get(sample_id), scores_b.get(sample_id)
        strips = _strip_digest(a, pair[0].images), _strip_digest(b, pair[1].images)
        for kind, differs in _sent_differences(pair, strips).items():
            sent[kind] += differs
        first, second = outcome(rows[0]), outcome(rows[1])
        if (first["correct"], first["graded"]) == (second["correct"], second["graded"]):
            continue  # the same score (an abstention and a wrong option are both wrong)
        if first["correct"] is True and second["correct"] is False:
            right_a += 1
        elif first["correct"] is False and second["correct"] is True:
            right_b += 1
        else:
            other += 1
        cause, detail = flip_cause(pair, rows, strips)
        by_cause.setdefault(cause, []).append(
            {"sample_id": sample_id, "a": outcome_text(first), "b": outcome_text(second), "detail": detail}
        )
    return {
        "a": _run_summary(a),
        "b": _run_summary(b),
        "headline": _headlines(a, b),
        "settings": [setting.as_dict() for setting in settings.settings],
        "locations": [setting.as_dict() for setting in settings.locations],
        "unrecorded": settings.unrecorded,
        "samples": {
            "a": len(predictions_a),
            "b": len(predictions_b),
            "shared": len(shared),
            "only_a": sorted(sample_id for sample_id in predictions_a if sample_id not in predictions_b),
            "only_b": sorted(sample_id for sample_id in predictions_b if sample_id not in predictions_a),
        },
        "sent": sent,
        "flipped": {
            "n": right_a + right_b + other,
            "right_in_a_only": right_a,
            "right_in_b_only": right_b,
            "other": other,
            "by_cause": [
                {"cause": cause, "samples": by_cause[cause]} for cause in CAUSES if cause in by_cause
            ],
        },
    }


def _headlines(a: RunFolder, b: RunFolder) -> list[dict[str, Any]]:
    """Both runs' headline numbers side by side: {key, label, a, b} (None where a run has none)."""
    first = {entry["key"]: entry for entry in headline_of(a.results)}
    second = {entry["key"]: entry for entry in headline_of(b.results)}
    return [
        {
            "key": key,
            "label": (first.get(key) or second[key])["label"],
            "a": first.get(key),
            "b": second.get(key),
        }
        for key in dict.fromkeys([*first, *second])
    ]


SENT_WORDS = {
    "failed": "an error (or not applicable) in one run only",
    "retrieval": "other retrieval",
    "frames": "other frames (times or video cut)",
    "pixels": "the same frame times, other pixels",
    "prompt": "other request text",
    "reply": "another reply",
}


def diff_lines(result: dict[str, Any], shown: int = 10) -> list[str]:
    """`diff_runs`'s result in words, for people: the runs, their headline numbers, the settings
    that differ by category, how many samples were sent or answered differently, and the
    flipped samples by cause (`shown` of each cause listed by id)."""
    from vqakit.scoring import number_text

    lines = [f"A = {result['a']['run']}", f"B = {result['b']['run']}"]
    for entry in result["headline"]:
        sides = [
            "n/a" if side is None else f"{number_text(side)} on {side['n']}"
            for side in (entry["a"], entry["b"])
        ]
        lines.append(f"{entry['label']}: {sides[0]} in A, {sides[1]} in B")
    settings = result["settings"]
    lines.append(f"settings that differ: {len(settings) or 'none'}")
    for category, heading in CATEGORIES.items():
        found = [setting["text"] for setting in settings if setting["category"] == category]
        if found:
            lines.append(f"  {heading}:")
            lines += [f"    {text}" for text in found]
    if result["locations"]:
        listed = ", ".join(setting["key"] for setting in result["locations"])
        lines.append(f"  files in other folders only (same names): {listed}")
    if result["unrecorded"]:
        lines.append(f"  not recorded by one run (an earlier version): {', '.join(result['unrecorded'])}")
    samples = result["samples"]
    lines.append(
        f"samples: {samples['shared']} in both"
        + (f", {len(samples['only_a'])} in A only" if samples["only_a"] else "")
        + (f", {len(samples['only_b'])} in B only" if samples["only_b"] else "")
    )
    differing = [f"{SENT_WORDS[kind]} {count}" for kind, count in result["sent"].items() if count]
    lines.append(f"sent or answered differently: {', '.join(differing) if differing else 'none'}")
    flipped = result["flipped"]
    lines.append(
        f"outcomes that differ: {flipped['n']} ({flipped['right_in_a_only']} right in A only, "
        f"{flipped['right_in_b_only']} right in B only, {flipped['other']} other)"
    )
    for group in flipped["by_cause"]:
        lines.append(f"  {group['cause']}: {len(group['samples'])}")
        for sample in group["samples"][:shown]:
            lines.append(f"    {sample['sample_id']}: {sample['a']} -> {sample['b']}; {sample['detail']}")
        if len(group["samples"]) > shown:
            lines.append(f"    ... {len(group['samples']) - shown} more (--show N, or --json)")
    return lines
