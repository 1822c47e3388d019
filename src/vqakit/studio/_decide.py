"""What `vqakit review apply` makes of the review decisions, sample by sample: each person's
latest decision is their vote (keep, drop, or an edit; two edits with the same new values are the
same vote) and the policy turns a sample's votes into what happens (`all`, `any`, `majority`; see
`_apply`). An adjudicator's decision is final whatever the policy. A stale decision (the sample
changed after it was made) is a vote only with `include_stale`, and is listed either way."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vqakit.schema import Sample
from vqakit.studio._agreement import vote
from vqakit.studio._review import Decision, EditError, edited_sample, sample_digest

Policy = Literal["all", "any", "majority"]
POLICIES: tuple[Policy, ...] = ("all", "any", "majority")


@dataclass
class Change:
    sample_id: str
    kind: str  # "drop", "edit" or "unapplied"
    votes: list[Decision]
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # edit: field -> (old, new)
    note: str = ""


@dataclass
class ApplyOutcome:
    folder: Path
    kept: int
    edited: int
    dropped: int
    unapplied: int
    reviewers: list[str]
    stale: list[Decision] = field(default_factory=list)  # made on an earlier version of their sample
    include_stale: bool = False  # whether the stale decisions were applied
    gone: int = 0  # decisions on samples no longer in the benchmark
    adjudicated: list[Change] = field(default_factory=list)  # samples an adjudicator decided
    history: str = ""  # where the applied review logs are kept in the new folder
    changes: list[Change] = field(default_factory=list)
    set_aside: dict[str, int] = field(default_factory=dict)  # log name -> lines set aside (not counted)


def _outcome(votes: list[Decision], policy: Policy) -> tuple[str, list[Decision]]:
    """("keep" | "drop" | "edit" | "unapplied", the decisions it follows)."""
    counted = Counter(vote(d) for d in votes)
    if policy == "any":
        drops = [d for d in votes if d.decision == "drop"]
        edits = [d for d in votes if d.decision == "edit"]
        return ("drop", drops) if drops else ("edit", edits) if edits else ("keep", votes)
    top, count = counted.most_common(1)[0]
    needed = len(votes) if policy == "all" else len(votes) // 2 + 1
    if count < needed:
        return "unapplied", votes
    chosen = [d for d in votes if vote(d) == top]
    return top.split(":", 1)[0], chosen


def is_stale(decision: Decision, sample: Sample, source_hash: str) -> bool:
    """Whether the sample changed after the decision was made (without a recorded sample
    digest: whether it was made on another version of the benchmark)."""
    if decision.sample_hash is not None:
        return decision.sample_hash != sample_digest(sample)
    return decision.benchmark_hash != source_hash


def _applies(decision: Decision, sample: Sample | None, source_hash: str, outcome: ApplyOutcome) -> bool:
    """Whether a decision on `sample` (None: no longer in the benchmark) is applied; a stale one
    only with `outcome.include_stale`, and listed either way (counted in `outcome`)."""
    if sample is None:
        outcome.gone += 1
        return False
    if is_stale(decision, sample, source_hash):
        outcome.stale.append(decision)
        outcome.stale.sort(key=lambda d: (d.sample_id, d.person))
        return outcome.include_stale
    return True


def votes_by_sample(
    samples: list[Sample], latest: dict[str, dict[str, Decision]], source_hash: str, outcome: ApplyOutcome
) -> dict[str, list[Decision]]:
    """{sample id: the decisions that vote on it} (see `_applies`)."""
    by_id = {s.id: s for s in samples}
    votes: dict[str, list[Decision]] = {}
    for decisions in latest.values():
        for sample_id, decision in decisions.items():
            if _applies(decision, by_id.get(sample_id), source_hash, outcome):
                votes.setdefault(sample_id, []).append(decision)
    return votes


def final_decisions(
    samples: list[Sample], adjudications: dict[str, Decision], source_hash: str, outcome: ApplyOutcome
) -> dict[str, Decision]:
    """{sample id: its adjudication} (see `_applies`)."""
    by_id = {s.id: s for s in samples}
    return {
        sample_id: decision
        for sample_id, decision in adjudications.items()
        if _applies(decision, by_id.get(sample_id), source_hash, outcome)
    }


def adjudicated(
    sample: Sample, final: Decision, votes: list[Decision], outcome: ApplyOutcome
) -> Sample | None:
    """The sample as its adjudicator decided, whatever the reviewers' votes (listed beside it)."""
    change = Change(sample.id, final.decision, [final], note="adjudicated: final")
    outcome.adjudicated.append(Change(sample.id, final.decision, [final, *votes]))
    if final.decision == "drop":
        outcome.dropped += 1
        outcome.changes.append(change)
        return None
    outcome.kept += 1
    if final.decision == "keep":
        return sample
    try:
        edited = edited_sample(sample, final.edit or {})
    except EditError as error:
        outcome.unapplied += 1
        outcome.changes.append(
            Change(
                sample.id,
                "unapplied",
                [final],
                note=f"the adjudicator's edit makes an invalid sample: {error}",
            )
        )
        return sample
    before, after = sample.model_dump(mode="json"), edited.model_dump(mode="json")
    change.fields = {
        key: (_field(before, key), _field(after, key))
        for key in (final.edit or {})
        if _field(before, key) != _field(after, key)
    }
    if change.fields:
        outcome.edited += 1
        outcome.changes.append(change)
    return edited


def decide(sample: Sample, votes: list[Decision], policy: Policy, outcome: ApplyOutcome) -> Sample | None:
    """The sample as the new version has it (None: dropped), counting what happened."""
    if not votes:
        outcome.kept += 1
        return sample
    kind, chosen = _outcome(votes, policy)
    if kind == "drop":
        outcome.dropped += 1
        outcome.changes.append(Change(sample.id, "drop", chosen))
        return None
    outcome.kept += 1
    if kind == "unapplied":
        outcome.unapplied += 1
        outcome.changes.append(Change(sample.id, "unapplied", votes, note="no agreement under this policy"))
        return sample
    if kind != "edit":
        return sample
    merged: dict[str, Any] = {}
    set_by: dict[str, str] = {}
    notes = []
    for decision in sorted(chosen, key=lambda d: d.time):
        for key, value in (decision.edit or {}).items():
            if key in merged and merged[key] != value:
                notes.append(f"{key}: {set_by[key]}'s value replaced by {decision.person}'s (later)")
            merged[key], set_by[key] = value, decision.person
    try:
        edited = edited_sample(sample, merged)
    except EditError as error:
        outcome.unapplied += 1
        outcome.changes.append(
            Change(sample.id, "unapplied", votes, note=f"the edits make an invalid sample: {error}")
        )
        return sample
    before, after = sample.model_dump(mode="json"), edited.model_dump(mode="json")
    fields = {
        key: (_field(before, key), _field(after, key))
        for key in merged
        if _field(before, key) != _field(after, key)
    }
    if not fields:
        return sample
    outcome.edited += 1
    outcome.changes.append(Change(sample.id, "edit", chosen, fields, "; ".join(notes)))
    return edited


def _field(data: dict[str, Any], key: str) -> Any:
    return (data.get("metadata") or {}).get(key) if key in ("category", "skills") else data.get(key)
