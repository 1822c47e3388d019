"""Ranking runs by their reasoning, under several rubric judges, and how much the judges agree.

Each judge grades every run's replies (MiRA rubric) into `<run>/judgments-<judge>.jsonl`,
resumably. A run's score under a judge is the sum of the four criteria means (0-8). The
rankings of runs by each judge are compared with Kendall's tau (1: same order, -1: reversed).
"""

from __future__ import annotations

import asyncio
import itertools
from pathlib import Path
from typing import Any

import numpy as np

from vqakit.benchmarks import load_benchmark
from vqakit.files import slug
from vqakit.runner import judge_run
from vqakit.runs import JudgmentLog, RunFolder
from vqakit.scoring import use_reasoning_source
from vqakit.systems.minerva_ego.rubric import CRITERIA, RubricJudge


def kendall_tau(first: list[str], second: list[str]) -> float:
    """Kendall's tau-a between two orderings of the same items."""
    position = {item: i for i, item in enumerate(second)}
    pairs = list(itertools.combinations(first, 2))
    if not pairs:
        return 1.0
    concordant = sum(1 if position[a] < position[b] else -1 for a, b in pairs)
    return concordant / len(pairs)


def _grade(run: Path, judge_spec: str, concurrency: int) -> dict[str, Any]:
    """Grade one run's reasoning with one rubric judge (resumably), and its criteria means."""
    folder = RunFolder(run)
    samples = [s for s in load_benchmark(folder.benchmark_location()).samples if s.reasoning]
    log = JudgmentLog(folder.path / f"judgments-{slug(judge_spec)}.jsonl")
    asyncio.run(judge_run({RubricJudge.name: judge_spec}, samples, folder.predictions(), log, concurrency))
    graded = [record["scores"] for (kind, _), record in log.records.items() if kind == RubricJudge.name]
    means = {
        c: float(np.mean(v)) if (v := [g[c] for g in graded if g.get(c) is not None]) else 0.0
        for c in CRITERIA
    }
    return {"n": len(graded), "criteria": means, "total": sum(means.values())}


def rank_runs(
    runs: list[Path], judges: list[str], concurrency: int = 8, reasoning_source: str = "reply"
) -> dict[str, Any]:
    """Each run's rubric score under each judge (reading `reasoning_source` of each reply: the
    reply, the thinking text or both), each judge's ranking, and pairwise agreement."""
    scores: dict[str, dict[str, Any]] = {judge: {} for judge in judges}
    with use_reasoning_source(reasoning_source):
        for judge in judges:
            for run in runs:
                scores[judge][str(run)] = _grade(run, judge, concurrency)
    rankings = {
        judge: sorted(scores[judge], key=lambda run: -scores[judge][run]["total"]) for judge in judges
    }
    agreement = {
        f"{a} vs {b}": kendall_tau(rankings[a], rankings[b]) for a, b in itertools.combinations(judges, 2)
    }
    return {"scores": scores, "rankings": rankings, "kendall_tau": agreement}
