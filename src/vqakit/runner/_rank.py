"""Ranking runs by their reasoning, under several rubric judges, and how much the judges agree.

Each judge grades every run's replies (MiRA rubric) into `<run>/judgments-<judge>.jsonl`,
resumably. A run's score under a judge is the sum of the four criteria means (0-8). The
rankings of runs by each judge are compared with Kendall's tau (1: same order, -1: reversed).
"""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from vqakit.benchmarks import load_benchmark
from vqakit.runner._run import JudgmentLog, PredictionLog
from vqakit.scoring import CRITERIA, rubric_judge


def kendall_tau(first: list[str], second: list[str]) -> float:
    """Kendall's tau-a between two orderings of the same items."""
    position = {item: i for i, item in enumerate(second)}
    pairs = list(itertools.combinations(first, 2))
    if not pairs:
        return 1.0
    concordant = sum(1 if position[a] < position[b] else -1 for a, b in pairs)
    return concordant / len(pairs)


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec)[-60:]


async def _grade(run: Path, judge_spec: str, concurrency: int) -> dict[str, Any]:
    from vqakit.models import Model

    config = yaml.safe_load((run / "config.yaml").read_text(encoding="utf-8"))
    samples = [s for s in load_benchmark(config["bench"]).samples if s.reasoning]
    predictions = PredictionLog(run / "predictions.jsonl")
    predictions.close()
    log = JudgmentLog(run / f"judgments-{_slug(judge_spec)}.jsonl")
    judge = Model(judge_spec, concurrency=concurrency)

    async def one(sample: Any) -> None:
        prediction = predictions.finished.get(sample.id)
        if prediction is None or prediction.reply is None or log.has("rubric", sample.id):
            return
        log.append(await rubric_judge(judge, sample, prediction))

    try:
        await asyncio.gather(*(one(sample) for sample in samples))
    finally:
        await judge.aclose()
    graded = [record["scores"] for (kind, _), record in log.records.items() if kind == "rubric"]
    means = {
        c: float(np.mean(v)) if (v := [g[c] for g in graded if g.get(c) is not None]) else 0.0
        for c in CRITERIA
    }
    return {"n": len(graded), "criteria": means, "total": sum(means.values())}


def rank_runs(runs: list[Path], judges: list[str], concurrency: int = 8) -> dict[str, Any]:
    scores: dict[str, dict[str, Any]] = {judge: {} for judge in judges}
    for judge in judges:
        for run in runs:
            scores[judge][str(run)] = asyncio.run(_grade(run, judge, concurrency))
    rankings = {
        judge: sorted(scores[judge], key=lambda run: -scores[judge][run]["total"]) for judge in judges
    }
    agreement = {
        f"{a} vs {b}": kendall_tau(rankings[a], rankings[b]) for a, b in itertools.combinations(judges, 2)
    }
    return {"scores": scores, "rankings": rankings, "kendall_tau": agreement}
