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
) -> None:
    """Grade with each judge in `models` ({judge name: model}). Failed or empty predictions are
    not graded. A sample's judges run in dependency order; samples run concurrently (each model
    bounds its own concurrency)."""
    registered = judges()
    order = [(name, judge) for name, judge in registered.items() if name in models]

    async def one(sample: Sample) -> None:
        prediction = predictions.get(sample.id)
        if prediction is None or prediction.error is not None or prediction.reply is None:
            return
        for name, judge in order:
            earlier = {
                needed: record
                for needed in judge.needs
                if (record := _record(log, registered[needed], sample.id)) is not None
            }
            if _graded(log, judge, sample.id) or not judge.wants(sample, prediction, earlier):
                continue
            graded = await judge.grade(models[name], sample, prediction, earlier)
            log.append({"sample_id": sample.id, "kind": name, "judge": str(models[name]), **graded})

    await asyncio.gather(*(one(sample) for sample in samples))


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
