"""How a study divides the work: which reviewer reviews which sample (`--assign K`), and which
questions participants answer (`--subset N --seed S`, or a list file).

Assignments give each sample to exactly K reviewers, balanced (every reviewer's count is within
one of every other's) and mixed (each sample's reviewers are those with the fewest samples so far,
then those who have shared the fewest samples with the ones already chosen, then chance), and each
reviewer gets their samples in an order of their own (seeded by the seed and their name). The
assignment is recorded in `<review folder>/assignments.json` when first made, and read back on
every later start: a studio started with other reviewers, another K or seed, or on another
version of the benchmark refuses to start rather than reassign the samples of a study under way.

A subset is drawn with `random.Random(seed)` from the benchmark's sample ids (kept in benchmark
order), or read from a file of ids (one a line; `#` starts a comment); how it was drawn is written
in each participant's run (config.yaml, `method_args.subset` and `.draw`).
A list file names one id a line; blank lines and lines starting with `#` are left out.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vqakit.files import InputError, read_text, write_text_atomic
from vqakit.schema import Benchmark

ASSIGNMENTS = "assignments.json"
_KIND = "vqakit review assignment"


@dataclass(frozen=True)
class Assignment:
    """Who reviews what: each reviewer's samples, in their own order."""

    per_sample: int
    seed: int
    queues: dict[str, list[str]]  # person -> sample ids, in the order they review them
    path: Path

    def allowed(self, person: str | None, sample_id: str) -> bool:
        return person is not None and sample_id in self._sets().get(person, frozenset())

    def _sets(self) -> dict[str, frozenset[str]]:
        cached = self.__dict__.get("_cached_sets")
        if cached is None:
            cached = {person: frozenset(ids) for person, ids in self.queues.items()}
            object.__setattr__(self, "_cached_sets", cached)
        return cached

    def reviewers_of(self, sample_id: str) -> list[str]:
        return [person for person, ids in self._sets().items() if sample_id in ids]


def assign(sample_ids: list[str], reviewers: list[str], per_sample: int, seed: int) -> dict[str, list[str]]:
    """{reviewer: their samples, in their own order}: each sample to `per_sample` reviewers,
    balanced and mixed (see the module's notes). ValueError when it cannot be done."""
    if per_sample < 1:
        raise ValueError("--assign: give each sample to at least 1 reviewer")
    if per_sample > len(reviewers):
        raise ValueError(
            f"--assign {per_sample}: only {len(reviewers)} reviewer(s) named with --person; "
            f"name at least {per_sample}"
        )
    chance = random.Random(f"{seed}/assign")
    order = list(sample_ids)
    chance.shuffle(order)
    load = dict.fromkeys(reviewers, 0)
    shared: Counter[tuple[str, str]] = Counter()
    queues: dict[str, list[str]] = {person: [] for person in reviewers}
    for sample_id in order:
        chosen: list[str] = []
        for _ in range(per_sample):
            ranked = [
                (load[p], sum(shared[tuple(sorted((p, q)))] for q in chosen), chance.random(), p)
                for p in reviewers
                if p not in chosen
            ]
            person = min(ranked)[3]
            for other in chosen:
                shared[tuple(sorted((person, other)))] += 1  # type: ignore[index]
            chosen.append(person)
            load[person] += 1
            queues[person].append(sample_id)
    for person, ids in queues.items():
        random.Random(f"{seed}/order/{person}").shuffle(ids)
    return queues


def load_assignment(
    folder: Path, benchmark: Benchmark, benchmark_hash: str, reviewers: list[str], per_sample: int, seed: int
) -> Assignment:
    """The study's assignment: read from `folder/assignments.json` when it is there (and made
    with these settings), else made and written there. ValueError naming the file otherwise."""
    path = folder / ASSIGNMENTS
    wanted = {"per_sample": per_sample, "seed": seed, "reviewers": sorted(reviewers)}
    if path.exists():
        recorded = _read(path)
        made = {key: recorded.get(key) for key in wanted}
        if made != wanted:
            raise ValueError(
                f"{path}: this study's samples were assigned with --assign {made['per_sample']} --seed "
                f"{made['seed']} to {', '.join(made['reviewers'] or [])}; start the studio with those, or "
                "move the file aside to assign the samples anew"
            )
        if recorded.get("benchmark_hash") != benchmark_hash:
            raise ValueError(
                f"{path}: made for version {recorded.get('version')} of {recorded.get('benchmark')}, "
                "whose samples have changed since; move the file aside to assign the samples anew"
            )
        return Assignment(per_sample, seed, recorded["queues"], path)
    queues = assign([s.id for s in benchmark.samples], list(reviewers), per_sample, seed)
    record = {
        "kind": _KIND,
        **wanted,
        "benchmark": benchmark.card.name,
        "version": benchmark.card.version,
        "benchmark_hash": benchmark_hash,
        "samples": len(benchmark.samples),
        "made": datetime.now(UTC).isoformat(timespec="seconds"),
        "how": "each sample to the reviewers with the fewest samples so far, then the fewest shared "
        "with those already chosen, then chance (random.Random(f'{seed}/assign')); each reviewer's "
        "order shuffled by random.Random(f'{seed}/order/{person}')",
        "queues": queues,
    }
    folder.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(record, indent=1) + "\n")
    return Assignment(per_sample, seed, queues, path)


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_text(path))
    except (InputError, ValueError) as error:
        raise ValueError(f"{path}: cannot read the study's assignment: {error}") from None
    queues = data.get("queues") if isinstance(data, dict) else None
    if (
        not isinstance(data, dict)
        or data.get("kind") != _KIND
        or not isinstance(queues, dict)
        or not all(isinstance(ids, list) and all(isinstance(i, str) for i in ids) for ids in queues.values())
    ):
        raise ValueError(f"{path}: not a review assignment of vqakit studio; move it aside")
    return data


@dataclass(frozen=True)
class Draw:
    """The questions participants answer: their ids (in benchmark order) and how they were drawn."""

    ids: list[str]
    how: str


def draw_subset(benchmark: Benchmark, count: int, seed: int) -> Draw:
    """`count` sample ids drawn at random (seeded), kept in benchmark order."""
    ids = [s.id for s in benchmark.samples]
    if not 1 <= count <= len(ids):
        raise ValueError(f"--subset {count}: {benchmark.card.name} has {len(ids)} samples")
    drawn = set(random.Random(seed).sample(ids, count))
    how = f"{count} of {len(ids)} samples drawn with random.Random({seed}).sample (ids in benchmark order)"
    return Draw([i for i in ids if i in drawn], how)


def read_subset(benchmark: Benchmark, path: Path) -> Draw:
    """The sample ids listed in `path` (one a line; blank lines and lines starting with `#` left
    out), in benchmark
    order. InputError naming the file and line of an unknown or repeated id."""
    text = read_text(path)
    known = {s.id for s in benchmark.samples}
    found: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        sample_id = line.strip()
        if not sample_id or sample_id.startswith("#"):
            continue
        if sample_id not in known:
            raise InputError(f"{path}:{number}: {sample_id!r} is not a sample of {benchmark.card.name}")
        if sample_id in found:
            raise InputError(
                f"{path}:{number}: {sample_id!r} is listed twice (first on line {found[sample_id]})"
            )
        found[sample_id] = number
    if not found:
        raise InputError(f"{path}: lists no sample id")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    how = f"{len(found)} samples listed in {path.name} (sha256 {digest}...)"
    return Draw([s.id for s in benchmark.samples if s.id in found], how)
