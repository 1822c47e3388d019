"""The report's claim-score sections: one table of means with 95% intervals (factuality,
relevance, coherence and their aggregate; all questions, then per category and per modality
type), the label counts of each judge, and per sample the claims with each judge's label
(`claims_detail`)."""

from __future__ import annotations

from typing import Any

from vqakit.report import SampleDetail, Section, Table, percent, register_judged_detail, register_section
from vqakit.schema import Prediction, Sample
from vqakit.systems.movierecapsqa.claims import CLAIMS, EMPTY_ANSWER, NO_CLAIMS
from vqakit.systems.movierecapsqa.summary import AGGREGATE, MEASURES, OFFICIAL_AGGREGATE

_COLUMNS = [*MEASURES, AGGREGATE, OFFICIAL_AGGREGATE]


def _cell(summary: dict[str, Any] | None, n: int) -> str:
    """`3.76 [3.51–4.02]`, with the count when it differs from the row's."""
    if not summary or summary.get("mean") is None:
        return "n/a"
    low, high = summary["ci95"]
    text = f"{summary['mean']:.2f} [{low:.2f}–{high:.2f}]"
    return text if summary["n"] == n else f"{text} (n={summary['n']})"


def _scopes(results: dict[str, Any]) -> list[tuple[str, str, str | None]]:
    """(row label, breakdown, key) for all questions, then each category and modality type."""
    scopes: list[tuple[str, str, str | None]] = [("all questions", "overall", None)]
    for breakdown, label in (("by_category", "category"), ("by_modality", "modality")):
        keys: list[str] = []
        for name in _COLUMNS:
            for key in (results.get(name) or {}).get(breakdown, {}):
                if key not in keys:
                    keys.append(key)
        scopes += [(f"{label} {key}", breakdown, key) for key in keys]
    return scopes


def _summary(results: dict[str, Any], name: str, breakdown: str, key: str | None) -> dict[str, Any] | None:
    entry = (results.get(name) or {}).get(breakdown)
    return entry if key is None else (entry or {}).get(key)


def _means_section(results: dict[str, Any]) -> Section:
    rows = []
    for label, breakdown, key in _scopes(results):
        found = [_summary(results, name, breakdown, key) for name in _COLUMNS]
        n = max((summary["n"] for summary in found if summary), default=0)
        rows.append([label, str(n), *(_cell(summary, n) for summary in found)])
    claims = results.get(CLAIMS) or {}
    notes = [
        "means with 95% bootstrap intervals (clustered by video where questions share one); aggregate:"
        " the mean of the three, questions all three"
        " scored; official aggregate: the mean of the scores each question has (the official"
        " evaluation's rule)"
    ]
    if claims:
        per = claims.get("claims_per_answer")
        notes.append(
            f"{claims['answers']} answers split into claims"
            + (f", {per:.1f} claims per answer" if per is not None else "")
            + f"; not scored: {claims['no_claims']} stating nothing checkable,"
            + f" {claims['empty_answers']} empty"
        )
    for name in MEASURES:
        unscored = {
            k: v for k, v in ((results.get(name) or {}).get("unscored") or {}).items() if k == "error"
        }
        if unscored:
            notes.append(f"{name}: {unscored['error']} judge error(s), not scored")
    columns = ["questions", "n", "factuality", "relevance", "coherence", "aggregate", "official aggregate"]
    return Section("Claim-based scores (0-5)", Table(columns, rows), "; ".join(notes), lead=True)


def _labels_section(results: dict[str, Any]) -> Section | None:
    rows = []
    for name in MEASURES:
        entry = results.get(name) or {}
        counts = entry.get("labels") or {}
        total = sum(counts.values())
        derived = entry.get("from_labels") or {}
        for label, count in counts.items():
            rows.append(
                [f"{name}: {label.replace('_', ' ')}", str(count), percent(count / total if total else None)]
            )
        if derived.get("mean") is not None:
            rows.append([f"{name}: score from the labels", str(derived["n"]), f"{derived['mean']:.2f}"])
    if not rows:
        return None
    note = (
        "label-derived score: 5 x the mean credit (1 / 0.5 / 0; not-checkable claims left out), "
        "a check on the judge's own score"
    )
    return Section("Claim labels", Table(["judge: label", "claims", "share"], rows), note)


@register_section
def claim_sections(results: dict[str, Any]) -> list[Section]:
    if not any(results.get(name) for name in MEASURES):
        return []
    labels = _labels_section(results)
    return [_means_section(results), *([labels] if labels else [])]


@register_judged_detail
def claims_detail(
    sample: Sample, prediction: Prediction, records: dict[str, dict[str, Any]]
) -> SampleDetail | None:
    """A sample card's claims, each with the label every claim judge gave it, the scores, and
    the justifications folded below (from the sample's judgment records by kind)."""
    extracted = records.get(CLAIMS)
    if extracted is None:
        return None
    if extracted.get("error") is not None:
        return SampleDetail([f"claims: not extracted ({extracted['error']})"])
    claims = extracted.get("claims") or []
    if not claims:
        why = {EMPTY_ANSWER: "the answer is empty", NO_CLAIMS: "the answer states nothing checkable"}
        return SampleDetail(
            [f"claims: none ({why.get(extracted.get('status'), 'none extracted')}); not scored"]
        )
    judged = {name: records[name] for name in MEASURES if name in records}
    scores = [
        f"{name} {record['score']}"
        if record.get("score") is not None
        else f"{name} error: {record.get('error')}"
        for name, record in judged.items()
    ]
    lines = ["scores: " + ", ".join(scores)] if scores else []
    folded: list[tuple[str, str]] = []
    for number, claim in enumerate(claims, start=1):
        labels = []
        for name, record in judged.items():
            verdicts = record.get("claims") or []
            if len(verdicts) == len(claims):
                verdict = verdicts[number - 1]
                labels.append(f"{name}: {verdict['label'].replace('_', ' ')}")
                if verdict.get("justification"):
                    folded.append(
                        (f"{number}. {name}: {verdict['label'].replace('_', ' ')}", verdict["justification"])
                    )
        lines.append(f"{number}. {claim}" + (f" — {'; '.join(labels)}" if labels else ""))
    return SampleDetail(lines, "the judges' justifications" if folded else "", folded)
