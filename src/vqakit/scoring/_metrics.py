"""Per-sample scores and run-level results: accuracy, groups, intervals, errors, letters.

MCQ: a sample is correct when the chosen option (read by the rules, or by a judge that decides
choices when the rules abstained) equals the gold index; an abstention counts as wrong. Open-ended
samples are correct when a judge that decides correctness says so, and unscored without one.
A sample whose answer is hidden (a test split scored by submission) is never scored: its choice
is read and kept (`chosen`) for the submission file, and it counts as `unscored (answer hidden)`.
A sample whose method or model call failed is an error, never a score: it is left out of every
accuracy and counted by kind beside it (`errors_as_wrong` gives the strict number, with failed
MCQ samples counted as wrong). A judge that failed on a sample is an error too (`_errors`): when
it was the judge that scores the sample (the open-ended verdict, the option of a reply the rules
abstained on, a grading judge's score) the sample is `error: judge NAME: KIND`, left out like a
failed call; otherwise the sample keeps its score and the failure is listed beside it
(`judge_errors`). A judge of the run that has not graded a sample yet (a batch still running, a
run reported without calling judges) leaves it `unscored (not judged yet: NAME)`, never wrong. A
method step that failed while the sample was still answered
(a score row's `step_failures`, e.g. the rewrite step of `rag`) is counted by step under
`step_failures`. MCQ accuracy and judged open-ended accuracy are reported apart,
each broken down by group on its own (`groups`, `open_ended_groups`); what the headline numbers
and `overall` mean is in `_headline`. Judges and benchmark systems add their own per-sample
fields and run-level metrics (`_judges`, `_hooks`).
"""

from __future__ import annotations

from typing import Any

from vqakit.schema import NOT_APPLICABLE, OfficialTable, Prediction, Sample
from vqakit.scoring._errors import judge_error_key, judge_errors
from vqakit.scoring._hooks import score_field_hooks
from vqakit.scoring._judges import Judge, judge_for_kind, judges
from vqakit.scoring._labels import LETTERS
from vqakit.scoring._tally import ResultsTally

HIDDEN = "unscored (answer hidden)"


def _by_judge(records: dict[str, dict[str, Any]] | None) -> list[tuple[Judge, dict[str, Any]]]:
    """This sample's judgment records with their judges, in judge order (unknown kinds left out)."""
    found: dict[str, tuple[Judge, dict[str, Any]]] = {}
    for kind, record in (records or {}).items():
        judge = judge_for_kind(kind)
        if judge is not None:
            found.setdefault(judge.name, (judge, record))
    return [found[name] for name in judges() if name in found]


def _fields(sample: Sample, prediction: Prediction, choice: int | None) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for hook in score_field_hooks():
        row.update(hook(sample, prediction, choice))
    return row


def _missing_status(names: tuple[str, ...]) -> str:
    return f"unscored (not judged yet: {', '.join(names)})"


def score_sample(
    sample: Sample,
    prediction: Prediction,
    records: dict[str, dict[str, Any]] | None = None,
    *,
    errors_as_wrong: bool = False,
    missing: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Score one prediction; `records` holds its judgment records by kind (judge name), `missing`
    names the run's judges that want this sample and have no record of it (not graded yet)."""
    judged = _by_judge(records)
    row: dict[str, Any] = {"sample_id": sample.id, "mcq": sample.is_mcq}
    for judge, record in judged:
        row.update(judge.fields(sample, record))
    if prediction.error is not None and prediction.error.type == NOT_APPLICABLE:
        row.update(_fields(sample, prediction, None))
        return {**row, "correct": None, "status": "not applicable"}
    if prediction.error is not None:
        row.update(_fields(sample, prediction, None))
        return {
            **row,
            "correct": False if sample.is_mcq and errors_as_wrong else None,
            "status": f"error: {prediction.error.type}",
            "error": prediction.error.type,
        }
    failed = judge_errors(judged)
    if failed:
        row["judge_errors"] = failed

    def judge_failed(name: str) -> dict[str, Any]:
        """The outcome of a sample whose scoring judge failed: an error, like a failed call, named
        by its first cause (a judge it needs that failed: `claims`, not the three that need it)."""
        cause = next((needed for needed in judges()[name].needs if needed in failed), None)
        while cause is not None:
            name, cause = cause, next((n for n in judges()[cause].needs if n in failed), None)
        key = judge_error_key(name, failed[name])
        wrong = False if sample.is_mcq and errors_as_wrong else None
        return {**row, "correct": wrong, "status": f"error: {key}", "error": key}

    registry = judges()
    waiting = tuple(name for name in missing if name in registry)
    if not sample.is_mcq:
        row.update(_fields(sample, prediction, None))
        if sample.answer_hidden:
            return {**row, "correct": None, "status": HIDDEN}
        deciding = next(((j, r) for j, r in judged if j.decides == "correct"), None)
        if deciding is None:
            if any(judge.grades and record.get("error") is None for judge, record in judged):
                return {**row, "correct": None, "status": "graded"}  # scored (claims), not right/wrong
            scoring = [j.name for j, _ in judged if j.name in failed and (j.grades or j.decides)]
            if scoring:
                return judge_failed(scoring[0])
            pending = tuple(n for n in waiting if registry[n].grades or registry[n].decides == "correct")
            if pending:
                return {**row, "correct": None, "status": _missing_status(pending)}
            return {**row, "correct": None, "status": "unscored (open-ended needs a judge)"}
        judge, record = deciding
        if judge.name in failed:
            return {**judge_failed(judge.name), "judge_raw": record.get("raw")}
        verdict = judge.verdict(sample, record)
        if verdict is None:
            return {
                **row,
                "correct": None,
                "status": "unscored (judge gave no verdict)",
                "judge_raw": record["raw"],
            }
        return {**row, "correct": verdict, "status": "judged", "judge_raw": record["raw"]}
    choice, how = prediction.choice, "rules"
    if choice is None:
        for judge, record in judged:
            read = judge.choice(sample, record) if judge.decides == "choice" else None
            if read is not None:
                choice, how = read, "model extractor"
                break
    row.update(_fields(sample, prediction, choice))
    if choice is None:
        choosers = [j.name for j, _ in judged if j.decides == "choice" and j.name in failed]
        if choosers:
            return judge_failed(choosers[0])
        pending = tuple(n for n in waiting if registry[n].decides == "choice")
        if pending:
            return {**row, "correct": None, "status": _missing_status(pending)}
    if sample.answer_hidden:
        chosen = {"chosen": LETTERS[choice], "extracted_by": how} if choice is not None else {}
        return {**row, "correct": None, "status": HIDDEN, **chosen}
    if choice is None:
        return {**row, "correct": False, "status": "abstained"}
    return {
        **row,
        "correct": choice == sample.answer,
        "status": "answered",
        "extracted_by": how,
        "chosen": LETTERS[choice],
        "gold": LETTERS[int(sample.answer)],
    }


def summarise(
    samples: list[Sample],
    scores: list[dict[str, Any]],
    groups: tuple[str, ...] | None = None,
    extra_groups: dict[str, dict[str, str]] | None = None,
    min_group_size: int = 1,
    order: dict[str, list[str]] | None = None,
    official: OfficialTable | None = None,
) -> dict:
    """Run-level results. `groups` defaults to the default groups; `extra_groups` adds groupings
    computed outside the samples' metadata, as {group name: {sample id: key}} (the runner adds
    video_length this way), `order` the order of a group's keys. Judges and registered metrics
    add their own keys. Rows with fewer than `min_group_size` samples are left out of the
    breakdowns and listed under `hidden_groups`. `official`, the card's table of the benchmark's
    own evaluation, adds its columns (`official`, see `_official`). Every accuracy's interval is
    clustered by video (`video_clusters`, `_intervals`). The same as counting the rows one by one
    with a `ResultsTally`, which is what a run's scoring does (`runner.write_scores`)."""
    by_id = {s.id: s for s in samples}
    extra_groups = extra_groups or {}
    tally = ResultsTally(groups, tuple(extra_groups), order)
    for sample in samples:  # every sample joins its videos' clusters, scored or not
        tally.forest.add(sample)
    for row in scores:
        sample_id = row["sample_id"]
        extra = {group: keys[sample_id] for group, keys in extra_groups.items() if sample_id in keys}
        tally.add(by_id[sample_id], row, extra)
    return tally.results(samples, scores, min_group_size, official)
