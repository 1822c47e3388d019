"""The judges' pass through providers' batch APIs (`vqakit eval --judge-batch`).

Rounds: a sweep of `run_judges` with batching models writes every judgment whose calls are
answered and queues the others; the queue goes out as one batch per judge model, recorded in
`judge_batches.jsonl` as soon as the provider accepts it; the batches are polled (every
`judge_batch_poll_s`) and their replies stored in `judge_batch_results.jsonl`; the next sweep
answers from them. A judge with several steps takes one round per step; judges that need
another's record wait for it.

Resume: the journal is read when the pass starts, so a process killed mid-batch (or a run
made with `judge_batch_wait=False`, which submits, polls once and stops) polls the same batches
when run again and never submits their requests a second time; the replies of an ended batch
are read from the run folder, never fetched again. While batches are outstanding in a run
folder, its judges' pass uses them even without `--judge-batch`, so what was paid for is used.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from vqakit.files import read_log
from vqakit.models import parse_batch_event
from vqakit.runner._config import EvalConfig
from vqakit.runner._second_pass import run_judges
from vqakit.runs import JUDGE_BATCH_RESULTS, JUDGE_BATCHES, JudgmentLog
from vqakit.schema import Prediction, Sample

MAX_ROUNDS = 25  # a judge that keeps making new calls is stopped here (none takes more than a few)


def outstanding_batches(folder: Path) -> list[str]:
    """Ids of the batches submitted for this run folder that have not ended, and `intent:<id>`
    for each batch about to be submitted when the process stopped (an intent line with no
    `submitted` or `unsent` line): the provider may hold it, so the next pass looks it up there
    instead of asking the same questions again."""
    submitted, ended, intents, settled = [], set(), [], set()
    for event in read_log(folder / JUDGE_BATCHES, parse_batch_event).checked():
        kind = event.get("event")
        if kind == "submitted":
            submitted.append(event["batch"])
            settled.add(event.get("intent"))
        elif kind == "ended":
            ended.add(event["batch"])
        elif kind == "intent":
            intents.append(event["intent"])
        elif kind == "unsent":
            settled.add(event.get("intent"))
    waiting = [batch for batch in submitted if batch not in ended]
    return waiting + [f"intent:{intent}" for intent in intents if intent not in settled]


def uses_batches(config: EvalConfig, folder: Path) -> bool:
    """Whether the judges' pass goes through batches: asked for, or batches are outstanding."""
    return bool(config.judges) and (config.judge_batch or bool(outstanding_batches(folder)))


async def judge_run_batched(
    config: EvalConfig,
    samples: list[Sample],
    predictions: dict[str, Prediction],
    log: JudgmentLog,
    folder: Path,
    on_note: Callable[[str], None] | None = None,
) -> int:
    """Grade with the config's judges through batches; returns how many judgments still wait on
    a batch (0 when every one is written: always so with `judge_batch_wait`, unless a judge
    kept making calls for `MAX_ROUNDS` rounds)."""
    from vqakit.models import Batcher, BatchJournal, Model

    note = on_note or (lambda text: None)
    if not config.judge_batch:
        note(f"{folder}: judge batches are outstanding; collecting them (see {JUDGE_BATCHES})")
    journal = BatchJournal(folder / JUDGE_BATCHES, folder / JUDGE_BATCH_RESULTS)
    batcher = Batcher(journal, poll_s=config.judge_batch_poll_s, on_note=note)
    models = {
        name: Model(
            spec,
            concurrency=config.concurrency,
            settings=config.judge_args.get(name) or None,
            **config.time_limits(),
        )
        for name, spec in config.judges.items()
    }
    wrapped: dict[str, Any] = {name: batcher.wrap(model) for name, model in models.items()}
    waiting = 0
    try:
        for _ in range(MAX_ROUNDS):
            waiting = await run_judges(wrapped, samples, predictions, log)
            if not waiting:
                return 0
            await batcher.submit()
            if not batcher.outstanding():
                continue  # nothing to wait for: the calls now go one by one, or failed at once
            ended = await batcher.collect(wait=config.judge_batch_wait)
            if not ended:  # only without waiting: the batches are still running
                return waiting
        note(f"the judges still made new calls after {MAX_ROUNDS} batch rounds; stopping")
        return waiting
    finally:
        await batcher.aclose()
        for model in models.values():
            await model.aclose()
