"""Review progress per person, and how far people agree on the samples several of them reviewed:
Cohen's kappa for two people, Fleiss' kappa for more (statsmodels), over the decision kinds
keep / drop / edit (an edit counts as one kind whatever it changed)."""

from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from vqakit.studio._review import Decision

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


@dataclass
class ReviewSummary:
    samples: int
    reviewed: int  # by at least one person
    doubly: int  # by at least two people
    people: list[PersonProgress] = field(default_factory=list)
    agreement: list[Agreement] = field(default_factory=list)  # Cohen for each pair; Fleiss for 3+


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


def review_summary(sample_ids: list[str], latest: dict[str, dict[str, Decision]]) -> ReviewSummary:
    """Progress of each person over `sample_ids` (the benchmark's), and agreement on the samples
    reviewed by several people."""
    present = set(sample_ids)
    kinds = {
        person: {sid: d.decision for sid, d in decisions.items() if sid in present}
        for person, decisions in latest.items()
    }
    counts = {sid: sum(1 for mine in kinds.values() if sid in mine) for sid in sample_ids}
    summary = ReviewSummary(
        samples=len(sample_ids),
        reviewed=sum(1 for n in counts.values() if n),
        doubly=sum(1 for n in counts.values() if n >= 2),
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


def review_progress(bench: str | Path, review_dir: Path | None = None) -> tuple[ReviewSummary, Path]:
    """(the review summary of a benchmark, the folder of its review logs): `vqakit review`."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runner import benchmark_hash
    from vqakit.studio._review import ReviewStore, review_folder

    benchmark = load_benchmark(bench)
    folder = review_folder(bench, benchmark.root, review_dir)
    latest = ReviewStore(folder, benchmark_hash(benchmark)).latest()
    return review_summary([s.id for s in benchmark.samples], latest), folder
