"""Review progress per person, and how far people agree on the samples several of them reviewed:
Cohen's kappa for two people, Fleiss' kappa for more (statsmodels), over the decision kinds
keep / drop / edit (an edit counts as one kind whatever it changed); and for each sample two or
more people reviewed, the share of pairs of them who cast the same vote (two edits are the same
vote when they set the same values, as `review apply` counts them), and whether they disagree
by decision (keep, drop, edit) or only by edit (different new values): the samples an
adjudicator settles."""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from vqakit.studio._review import Decision, ReviewStore

KINDS = ("keep", "drop", "edit")


@dataclass(frozen=True)
class PersonProgress:
    person: str
    reviewed: int  # samples of this version with a decision
    keep: int
    drop: int
    edit: int
    stale: int  # decisions on samples no longer in the benchmark
    last: str | None  # time of the latest decision


@dataclass(frozen=True)
class Agreement:
    method: str  # "Cohen" or "Fleiss"
    people: list[str]
    n: int  # samples all of `people` reviewed
    kappa: float | None  # None: no such sample, or every decision the same (kappa undefined)
    observed: float | None  # share of samples on which they all agree


@dataclass(frozen=True)
class SampleAgreement:
    """How the reviewers of one sample voted."""

    sample_id: str
    votes: dict[str, str]  # person -> "keep", "drop: REASON" or "edit"
    edits: dict[str, dict]  # person -> the new values of their edit
    notes: dict[str, str]  # person -> why, in their words (where they said)
    agreement: float  # share of pairs of reviewers who cast the same vote
    status: str  # "agree", "decision" (they differ in kind) or "edit" (all edit, with other values)
    adjudication: str | None = None  # the adjudicator's decision, where one was made


@dataclass
class ReviewSummary:
    samples: int
    reviewed: int  # by at least one person
    doubly: int  # by at least two people
    people: list[PersonProgress] = field(default_factory=list)
    agreement: list[Agreement] = field(default_factory=list)  # Cohen for each pair; Fleiss for 3+
    per_sample: list[SampleAgreement] = field(default_factory=list)  # samples two or more reviewed
    disagreements: int = 0  # of them, those people disagree on
    adjudicated: int = 0  # of those, the ones an adjudicator decided
    problems: list[str] = field(default_factory=list)  # log lines left out (file:line: why)
    set_aside: dict[str, int] = field(default_factory=dict)  # log name -> lines set aside (not counted)


def _cohen(a: dict[str, str], b: dict[str, str], shared: list[str]) -> tuple[float | None, float | None]:
    from statsmodels.stats.inter_rater import cohens_kappa

    if not shared:
        return None, None
    table = [[0] * len(KINDS) for _ in KINDS]
    for sample in shared:
        table[KINDS.index(a[sample])][KINDS.index(b[sample])] += 1
    observed = sum(table[i][i] for i in range(len(KINDS))) / len(shared)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        kappa = float(cohens_kappa(table, return_results=False))
    return (None if kappa != kappa else kappa), observed


def _fleiss(rows: list[list[str]]) -> tuple[float | None, float | None]:
    from statsmodels.stats.inter_rater import fleiss_kappa

    if not rows:
        return None, None
    table = [[row.count(kind) for kind in KINDS] for row in rows]
    observed = sum(1 for row in rows if len(set(row)) == 1) / len(rows)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        kappa = float(fleiss_kappa(table, method="fleiss"))
    return (None if kappa != kappa else kappa), observed


def vote(decision: Decision) -> str:
    """A decision as a vote: its kind, an edit with its values (as `review apply` counts)."""
    if decision.decision == "edit":
        return "edit:" + json.dumps(decision.edit, sort_keys=True)
    return decision.decision


def _shown_vote(decision: Decision) -> str:
    return f"drop: {decision.reason}" if decision.decision == "drop" else decision.decision


def sample_agreement(sample_id: str, decisions: dict[str, Decision]) -> SampleAgreement:
    """The votes on one sample (two or more people's latest decisions)."""
    cast = {person: vote(d) for person, d in decisions.items()}
    pairs = list(itertools.combinations(cast.values(), 2))
    share = sum(1 for a, b in pairs if a == b) / len(pairs) if pairs else 1.0
    kinds = {d.decision for d in decisions.values()}
    status = "agree" if len(set(cast.values())) == 1 else "decision" if len(kinds) > 1 else "edit"
    return SampleAgreement(
        sample_id,
        {person: _shown_vote(d) for person, d in decisions.items()},
        {person: dict(d.edit or {}) for person, d in decisions.items() if d.decision == "edit"},
        {person: d.note for person, d in decisions.items() if d.note},
        share,
        status,
    )


def per_sample(
    sample_ids: list[str], latest: dict[str, dict[str, Decision]], adjudications: dict[str, Decision]
) -> list[SampleAgreement]:
    """The votes on each sample two or more people reviewed, in benchmark order."""
    found = []
    for sample_id in sample_ids:
        decisions = {person: mine[sample_id] for person, mine in latest.items() if sample_id in mine}
        if len(decisions) < 2:
            continue
        agreement = sample_agreement(sample_id, decisions)
        settled = adjudications.get(sample_id)
        if settled is not None:
            agreement = replace(agreement, adjudication=f"{_shown_vote(settled)} by {settled.person}")
        found.append(agreement)
    return found


def review_summary(
    sample_ids: list[str],
    latest: dict[str, dict[str, Decision]],
    adjudications: dict[str, Decision] | None = None,
    problems: list[str] | None = None,
) -> ReviewSummary:
    """Progress of each person over `sample_ids` (the benchmark's), agreement on the samples
    reviewed by several people (kappas, and each sample's), and what adjudicators settled."""
    present = set(sample_ids)
    kinds = {
        person: {sid: d.decision for sid, d in decisions.items() if sid in present}
        for person, decisions in latest.items()
    }
    counts = {sid: sum(1 for mine in kinds.values() if sid in mine) for sid in sample_ids}
    samples = per_sample(sample_ids, latest, adjudications or {})
    summary = ReviewSummary(
        samples=len(sample_ids),
        reviewed=sum(1 for n in counts.values() if n),
        doubly=sum(1 for n in counts.values() if n >= 2),
        per_sample=samples,
        disagreements=sum(1 for s in samples if s.status != "agree"),
        adjudicated=sum(1 for s in samples if s.status != "agree" and s.adjudication),
        problems=list(problems or []),
    )
    for person, decisions in latest.items():
        mine = kinds[person]
        summary.people.append(
            PersonProgress(
                person,
                len(mine),
                *(sum(1 for kind in mine.values() if kind == k) for k in KINDS),
                stale=len(decisions) - len(mine),
                last=max((d.time for d in decisions.values()), default=None),
            )
        )
    people = [p for p in latest if kinds[p]]
    for a, b in itertools.combinations(people, 2):
        shared = [sid for sid in sample_ids if sid in kinds[a] and sid in kinds[b]]
        kappa, observed = _cohen(kinds[a], kinds[b], shared)
        summary.agreement.append(Agreement("Cohen", [a, b], len(shared), kappa, observed))
    if len(people) > 2:
        rows = [[kinds[p][sid] for p in people] for sid in sample_ids if all(sid in kinds[p] for p in people)]
        kappa, observed = _fleiss(rows)
        summary.agreement.append(Agreement("Fleiss", people, len(rows), kappa, observed))
    return summary


def store_summary(sample_ids: list[str], store: ReviewStore) -> ReviewSummary:
    """The summary of what a store's logs say, with the lines it could not read named (the
    studio's pages and `/api/progress`: shown, never a failure for everyone)."""
    summary = review_summary(sample_ids, store.latest(), store.adjudications(), store.problems())
    summary.set_aside = store.lines_set_aside()
    return summary


def review_progress(
    bench: str | Path,
    review_dir: Path | None = None,
    *,
    set_aside_bad_lines: bool = False,
    on_note: Callable[[str], None] | None = None,
) -> tuple[ReviewSummary, Path]:
    """(the review summary of a benchmark, the folder of its review logs): `vqakit review`.
    `BadLogLines` (an InputError) naming each line of a log that cannot be read: nothing is
    counted until it is mended, or set aside (`set_aside_bad_lines`: moved into
    `<person>.set-aside.jsonl` beside the log, each move said to `on_note`, and counted in the
    summary's `set_aside`)."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runner import benchmark_hash
    from vqakit.studio._review import review_folder

    benchmark = load_benchmark(bench)
    folder = review_folder(bench, benchmark.root, review_dir)
    store = ReviewStore(folder, benchmark_hash(benchmark))
    if set_aside_bad_lines:
        for moved in store.set_aside_bad_lines():
            if on_note is not None:
                on_note(str(moved))
    latest = store.latest(strict=True)
    summary = review_summary([s.id for s in benchmark.samples], latest, store.adjudications())
    summary.set_aside = store.lines_set_aside()
    return summary, folder
