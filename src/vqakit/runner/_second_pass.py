"""The judges' pass over finished predictions: each assigned judge grades the samples it wants,
resumably (one judgments.jsonl line per sample and judge, written as soon as it is known).

A judgment that failed is written with its `error` and an `error_kind`: the type of the judge's
last failed call (`auth`, `server`, ...), or `invalid_output` when its calls were answered and
the judge could not read them; it is graded again when the run is resumed."""

from __future__ import annotations

import asyncio
from contextvars import ContextVar
from typing import Any

from vqakit.models import redact_record
from vqakit.runs import JudgmentLog
from vqakit.schema import Prediction, Sample
from vqakit.scoring import Judge, judges


def _record(log: JudgmentLog, judge: Judge, sample_id: str) -> dict[str, Any] | None:
    """The judge's record of a sample, also under the kind earlier versions wrote."""
    found = log.get(judge.name, sample_id)
    if found is None and judge.legacy_kind:
        found = log.get(judge.legacy_kind, sample_id)
    return found


_CALLS: ContextVar[list[str | None] | None] = ContextVar("judge_calls", default=None)


class _Noted:
    """A judge's model that notes how each of its calls ended (None, or the error's type), for
    the kind of a failed judgment; everything else is the model's."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def __str__(self) -> str:
        return str(self.model)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        completion = await self.model.complete(*args, **kwargs)
        calls = _CALLS.get()
        if calls is not None:
            calls.append(None if completion.error is None else completion.error.type)
        return completion


def _with_kind(graded: dict[str, Any], calls: list[str | None]) -> dict[str, Any]:
    """A failed judgment with its `error_kind` (left out when no call was made: the judge lacked
    what it needs, which `vqakit.scoring` tells from the records)."""
    if graded.get("error") is None or graded.get("error_kind") or not calls:
        return graded
    failed = [kind for kind in calls if kind is not None]
    return {**graded, "error_kind": failed[-1] if failed else "invalid_output"}


def _graded(log: JudgmentLog, judge: Judge, sample_id: str) -> bool:
    """Whether the sample needs no (new) grading by this judge."""
    return log.has(judge.name, sample_id) or bool(judge.legacy_kind and log.has(judge.legacy_kind, sample_id))


def not_judged(
    names: tuple[str, ...], sample: Sample, prediction: Prediction, records: dict[str, dict[str, Any]]
) -> tuple[str, ...]:
    """The judges among `names` that would grade this sample and have no record of it (records
    with an error count as graded: they are failures, not missing)."""
    if prediction.error is not None or prediction.reply is None:
        return ()
    registered = judges()
    found = []
    for name, judge in registered.items():
        if name not in names or name in records or (judge.legacy_kind and judge.legacy_kind in records):
            continue
        earlier = {needed: records[needed] for needed in judge.needs if needed in records}
        if judge.wants(sample, prediction, earlier):
            found.append(name)
    return tuple(found)


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
    noted = {name: _Noted(model) for name, model in models.items()}

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
            calls: list[str | None] = []
            _CALLS.set(calls)  # this sample's task has its own context: calls of other samples not seen
            with deferred_calls() as deferred:
                graded = await judge.grade(noted[name], sample, prediction, earlier)
            if deferred:
                waiting.add(name)
                continue
            graded = _with_kind(graded, calls)
            record = {"sample_id": sample.id, "kind": name, "judge": str(models[name]), **graded}
            log.append(redact_record(record))  # no known key reaches judgments.jsonl
        return len(waiting)

    return sum(await asyncio.gather(*(one(sample) for sample in samples)))


async def judge_run(
    specs: dict[str, str],
    samples: list[Sample],
    predictions: dict[str, Prediction],
    log: JudgmentLog,
    concurrency: int,
    settings: dict[str, dict[str, Any]] | None = None,
    limits: dict[str, float] | None = None,
) -> None:
    """`run_judges` with models made from specs ({judge name: spec}), their generation settings
    ({judge name: settings}) and the run's time limits (`EvalConfig.time_limits`), closed
    afterwards."""
    from vqakit.models import Model

    settings = settings or {}
    models = {
        name: Model(spec, concurrency=concurrency, settings=settings.get(name) or None, **(limits or {}))
        for name, spec in specs.items()
    }
    try:
        await run_judges(models, samples, predictions, log)
    finally:
        for model in models.values():
            await model.aclose()
