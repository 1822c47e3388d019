"""The judges' pass over finished predictions: each assigned judge grades the samples it wants,
resumably (one judgments.jsonl line per sample and judge, written as soon as it is known)."""

from __future__ import annotations

import asyncio
from typing import Any

from vqakit.runs import JudgmentLog
from vqakit.schema import Prediction, Sample
from vqakit.scoring import Judge, judges


def _record(log: JudgmentLog, judge: Judge, sample_id: str) -> dict[str, Any] | None:
    """The judge's record of a sample, also under the kind earlier versions wrote."""
    found = log.get(judge.name, sample_id)
    if found is None and judge.legacy_kind:
        found = log.get(judge.legacy_kind, sample_id)
    return found


def _graded(log: JudgmentLog, judge: Judge, sample_id: str) -> bool:
    """Whether the sample needs no (new) grading by this judge."""
    return log.has(judge.name, sample_id) or bool(judge.legacy_kind and log.has(judge.legacy_kind, sample_id))


async def run_judges(
    models: dict[str, Any], samples: list[Sample], predictions: dict[str, Prediction], log: JudgmentLog
) -> int:
    """Grade with each judge in `models` ({judge name: model}). Failed or empty predictions are
    not graded. A sample's judges run in dependency order; samples run concurrently (each model
    bounds its own concurrency). Returns how many gradings wait on a batch: a judgment that made
    a call a batching model deferred is not written, nor are those of the judges that need it."""
    from vqakit.models import deferred_calls

    registered = judges()
    order = [(name, judge) for name, judge in registered.items() if name in models]

    async def one(sample: Sample) -> int:
        prediction = predictions.get(sample.id)
        if prediction is None or prediction.error is not None or prediction.reply is None:
            return 0
        waiting: set[str] = set()
        for name, judge in order:
            if waiting.intersection(judge.needs):
                waiting.add(name)
                continue
            earlier = {
                needed: record
                for needed in judge.needs
                if (record := _record(log, registered[needed], sample.id)) is not None
            }
            if _graded(log, judge, sample.id) or not judge.wants(sample, prediction, earlier):
                continue
            with deferred_calls() as deferred:
                graded = await judge.grade(models[name], sample, prediction, earlier)
            if deferred:
                waiting.add(name)
                continue
            log.append({"sample_id": sample.id, "kind": name, "judge": str(models[name]), **graded})
        return len(waiting)

    return sum(await asyncio.gather(*(one(sample) for sample in samples)))


async def judge_run(
    specs: dict[str, str],
    samples: list[Sample],
    predictions: dict[str, Prediction],
    log: JudgmentLog,
    concurrency: int,
    settings: dict[str, dict[str, Any]] | None = None,
) -> None:
    """`run_judges` with models made from specs ({judge name: spec}) and their generation
    settings ({judge name: settings}), closed afterwards."""
    from vqakit.models import Model

    settings = settings or {}
    models = {
        name: Model(spec, concurrency=concurrency, settings=settings.get(name) or None)
        for name, spec in specs.items()
    }
    try:
        await run_judges(models, samples, predictions, log)
    finally:
        for model in models.values():
            await model.aclose()
