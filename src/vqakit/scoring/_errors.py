"""A run's errors: samples whose method or model call failed, and judges that failed on a sample.

A judgment record with an `error` is a failure, never a verdict: its kind is the record's
`error_kind` (the type of the judge's failed call, which the runner notes: `auth`, `server`,
...), else what the judge needed and did not get (`claims_missing`, `claims_failed`), else the
`kind:` its message starts with (`invalid_output: ...`), else `failed`.

A sample is counted once in results.json's `errors`:

    {"n": samples with a failed prediction or a failed judgment,
     "by_kind": {kind: samples},        # the prediction's kind, else `judge NAME: KIND` of the
                                        # first judge (in judge order) that failed on it
     "counted_as_wrong": bool,          # --errors-as-wrong counted failed MCQ samples as wrong
     "by_judge": {name: {kind: samples}},  # every judge that failed, a sample under each
     "scored_without_judge": samples of n that were still scored (only a judge that does not
                                         score them failed, e.g. a diagnostic one)}

A sample whose prediction failed is not graded, so its judges add nothing to it. Rerunning the
command grades failed judgments again (`JudgmentLog(retry_errors=True)`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from vqakit.scoring._judges import Judge

_KIND_PREFIX = re.compile(r"^([a-z][a-z0-9_]*):")
JUDGE_ERROR = "judge"  # by_kind keys of judges' failures start with it: `judge open: auth`


def judge_error_kind(judge: Judge, record: dict[str, Any], records: dict[str, dict[str, Any]]) -> str:
    """The kind of a failed judgment (`records`: the sample's records by judge name)."""
    if record.get("error_kind"):
        return str(record["error_kind"])
    for needed in judge.needs:
        if needed not in records:
            return f"{needed}_missing"
        if records[needed].get("error") is not None:
            return f"{needed}_failed"
    found = _KIND_PREFIX.match(str(record.get("error")))
    return found.group(1) if found else "failed"


def judge_errors(judged: Iterable[tuple[Judge, dict[str, Any]]]) -> dict[str, str]:
    """{judge name: error kind} of the judges that failed on a sample, in judge order."""
    pairs = list(judged)
    records = {judge.name: record for judge, record in pairs}
    return {
        judge.name: judge_error_kind(judge, record, records)
        for judge, record in pairs
        if record.get("error") is not None
    }


def judge_error_key(name: str, kind: str) -> str:
    """How a judge's failure is named among error kinds: `judge open: auth`."""
    return f"{JUDGE_ERROR} {name}: {kind}"


def _kind_of(row: dict[str, Any]) -> str:
    if "error" in row:
        return str(row["error"])
    name, kind = next(iter(row["judge_errors"].items()))
    return judge_error_key(name, kind)


class ErrorTally:
    """results.json's `errors`, counted one score row at a time."""

    def __init__(self) -> None:
        self.n = self.scored_without_judge = 0
        self.by_kind: Counter[str] = Counter()
        self.by_judge: dict[str, Counter[str]] = {}
        self.counted_as_wrong = False

    def add(self, row: dict[str, Any]) -> None:
        if "error" in row and row["correct"] is False:
            self.counted_as_wrong = True
        if "error" not in row and not row.get("judge_errors"):
            return
        self.n += 1
        self.by_kind[_kind_of(row)] += 1
        for name, kind in (row.get("judge_errors") or {}).items():
            self.by_judge.setdefault(name, Counter())[kind] += 1
        self.scored_without_judge += "error" not in row

    def summary(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "by_kind": dict(sorted(self.by_kind.items())),
            "counted_as_wrong": self.counted_as_wrong,
            "by_judge": {name: dict(sorted(kinds.items())) for name, kinds in sorted(self.by_judge.items())},
            "scored_without_judge": self.scored_without_judge,
        }


def errors_summary(scores: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """results.json's `errors` (see the module) from the score rows."""
    tally = ErrorTally()
    for row in scores:
        tally.add(row)
    return tally.summary()


def error_kinds(results: Iterable[dict[str, Any]], *, judges_only: bool = False) -> dict[str, int]:
    """Samples in error by kind, summed over runs' results (only judges' failures: `judges_only`)."""
    kinds: Counter[str] = Counter()
    for found in results:
        for kind, count in ((found.get("errors") or {}).get("by_kind") or {}).items():
            if not judges_only or kind.startswith(f"{JUDGE_ERROR} "):
                kinds[kind] += count
    return dict(sorted(kinds.items()))


def errors_text(results: Iterable[dict[str, Any]], *, judges_only: bool = False) -> str | None:
    """One line on the samples that ended in an error, by kind, and how to retry them; None when
    there are none. `judges_only`: only the judges' failures."""
    kinds = error_kinds(results, judges_only=judges_only)
    if not kinds:
        return None
    listing = ", ".join(f"{kind} {count}" for kind, count in kinds.items())
    what = "judge(s) failed on" if judges_only else "ended in an error"
    subject = f"{sum(kinds.values())} sample(s)"
    lead = f"{what} {subject}" if judges_only else f"{subject} {what}"
    return f"{lead} ({listing}); rerun the same command to retry them, or see each one's error in report.html"
