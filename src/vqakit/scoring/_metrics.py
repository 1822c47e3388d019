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

from collections import Counter, defaultdict
from typing import Any

from vqakit.schema import NOT_APPLICABLE, OfficialTable, Prediction, Sample
from vqakit.scoring._clusters import video_clusters
from vqakit.scoring._errors import errors_summary, judge_error_key, judge_errors
from vqakit.scoring._headline import headline, overall_summary
from vqakit.scoring._hooks import default_groups, group_keys, metric_hooks, score_field_hooks
from vqakit.scoring._intervals import accuracy_summary
from vqakit.scoring._judges import Judge, judge_for_kind, judges
from vqakit.scoring._labels import LETTERS
from vqakit.scoring._official import official_results

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


def _chance(samples: list[Sample]) -> float | None:
    """The accuracy a uniformly random choice has in expectation on these MCQ samples."""
    return sum(1 / len(s.choices) for s in samples if s.choices) / len(samples) if samples else None


def _ordered(buckets: dict[str, list[dict]], order: list[str] | None) -> list[tuple[str, list[dict]]]:
    """Keys in the given order (e.g. length buckets shortest first), others sorted after them."""
    rank = {key: i for i, key in enumerate(order or [])}
    return sorted(buckets.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))


def _accuracy(rows: list[dict[str, Any]], clusters: dict[str, str]) -> dict[str, Any]:
    """`accuracy_summary` of these score rows, clustered by the video each sample is about (a row
    of a sample not in `clusters` is a cluster of its own)."""
    return accuracy_summary(
        [float(row["correct"]) for row in rows],
        [clusters.get(row["sample_id"], row["sample_id"]) for row in rows],
    )


def _group_buckets(
    samples: dict[str, Sample],
    scored: list[dict[str, Any]],
    groups: tuple[str, ...],
    extra: dict[str, dict],
    order: dict[str, list[str]],
    clusters: dict[str, str],
) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}
    for group in groups:
        buckets: dict[str, list[dict]] = defaultdict(list)
        for row in scored:
            for key in group_keys(samples[row["sample_id"]], group):
                buckets[key].append(row)
        if buckets:
            found[group] = {key: _accuracy(rows, clusters) for key, rows in sorted(buckets.items())}
    for group, keys in extra.items():
        by_key: dict[str, list[dict]] = defaultdict(list)
        for row in scored:
            if row["sample_id"] in keys:
                by_key[keys[row["sample_id"]]].append(row)
        if by_key:
            ordered = _ordered(by_key, order.get(group))
            found[group] = {key: _accuracy(rows, clusters) for key, rows in ordered}
    return found


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
    clustered by video (`video_clusters`, `_intervals`)."""
    by_id = {s.id: s for s in samples}
    clusters = video_clusters(samples)
    scored = [row for row in scores if row["correct"] is not None]
    mcq = [row for row in scored if row["mcq"]]
    open_ended = [row for row in scored if not row["mcq"]]
    mcq_summary, open_summary = _accuracy(mcq, clusters), _accuracy(open_ended, clusters)
    pooled = _accuracy(scored, clusters)
    breakdown = groups or default_groups()
    results: dict[str, Any] = {
        "overall": overall_summary(mcq_summary, open_summary, pooled),
        "mcq": mcq_summary,
        "open_ended": open_summary,
        "errors": errors_summary(scores),
        "chance": _chance([by_id[row["sample_id"]] for row in mcq]),
        "counts": dict(Counter(row["status"].split(":")[0] for row in scores)),
        "groups": _group_buckets(by_id, mcq, breakdown, extra_groups or {}, order or {}, clusters),
        "open_ended_groups": _group_buckets(
            by_id, open_ended, breakdown, extra_groups or {}, order or {}, clusters
        ),
    }
    failed_steps = Counter(step for row in scores for step in row.get("step_failures") or ())
    if failed_steps:  # a method's steps that failed without failing the sample (e.g. rag's rewrite)
        results["step_failures"] = dict(sorted(failed_steps.items()))
    for name, judge in judges().items():
        summary = judge.summarise(samples, scores)
        if summary is not None:
            results[name] = summary
    for metric in metric_hooks():
        results.update(metric(samples, scores))
    hidden: dict[str, dict[str, int]] = {}
    for field, suffix in (("groups", ""), ("open_ended_groups", " (open-ended)")):
        for group, buckets in list(results[field].items()):
            kept = {key: summary for key, summary in buckets.items() if summary["n"] >= min_group_size}
            left_out = {
                key: summary["n"] for key, summary in buckets.items() if summary["n"] < min_group_size
            }
            if left_out:
                hidden[group + suffix] = left_out
            if kept:
                results[field][group] = kept
            else:
                del results[field][group]
    results["min_group_size"] = min_group_size
    results["hidden_groups"] = hidden  # rows with fewer than min_group_size samples: {group: {key: n}}
    results["letters"] = {
        "chosen": dict(sorted(Counter(row["chosen"] for row in scored if "chosen" in row).items())),
        "gold": dict(
            sorted(
                Counter(LETTERS[int(by_id[row["sample_id"]].answer)] for row in scored if row["mcq"]).items()
            )
        ),
    }
    if official is not None:
        results["official"] = official_results(official, by_id, scores)
    results["headline"] = headline(results)
    return results
