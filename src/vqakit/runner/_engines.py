"""The local engine, and what every engine shares: the method run over samples (`predict`) with
the run's context (model, frame provider).

`local` is asyncio in this process, at most `concurrency` samples at a time, decoding in worker
processes (`_decode_pool`); the `ray` engine (`_ray_engine`) runs the same `predict` in Ray tasks.
Both call the same method with the same context, so predictions are the same (timings aside).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from contextlib import nullcontext
from pathlib import Path
from typing import Any, TypeVar

from vqakit.methods import FrameProvider, FrameStats, MethodContext, get_method
from vqakit.runner._config import EvalConfig
from vqakit.runner._decode_pool import DecodePool
from vqakit.runner._plan import planned
from vqakit.schema import Benchmark, Prediction, Protocol, SampleMediaChecks

Record = Callable[[list[Prediction]], None]
T = TypeVar("T")


async def predict(
    samples: list[Any],
    config: EvalConfig,
    context: MethodContext,
    on_predictions: Record,
) -> None:
    """Run the method over samples, `concurrency` at a time, planned by video (`_plan`); a
    failing sample becomes an error. Memory stays bounded whatever the number of samples: the
    workers take samples from a short queue that the planner fills as they go. Predictions are
    handed to `on_predictions` off the event loop, in batches of those finished meanwhile (one
    write and one sync per batch); at most `RECORD_BACKLOG` wait to be written (a worker whose
    prediction finds the backlog full waits), so a method faster than the disk cannot pile
    predictions up in memory. When writing fails, the workers stop: nothing more is asked of a
    model whose answers cannot be kept. A run stopped (Ctrl-C, an endpoint that keeps failing)
    while workers wait for room still writes their predictions."""
    method = get_method(config.method)
    workers = max(1, config.concurrency)
    queue: asyncio.Queue = asyncio.Queue(maxsize=2 * workers)
    finished: asyncio.Queue = asyncio.Queue(maxsize=max(RECORD_BACKLOG, 2 * workers))
    stopped_waiting: list[Prediction] = []  # finished when the run was stopped, not yet queued

    async def record() -> None:
        while True:
            batch = [await finished.get()]
            while not finished.empty():
                batch.append(finished.get_nowait())
            last = batch[-1] is None  # put once, after every worker is done
            batch = [prediction for prediction in batch if prediction is not None]
            if last:
                batch += stopped_waiting
            if batch:
                await asyncio.to_thread(on_predictions, batch)
            if last:
                return

    async def feed() -> None:
        try:
            async for item in planned(samples, method, context):
                await queue.put(item)
        finally:
            for _ in range(workers):
                await queue.put(None)

    checks = _media_checks(context)

    async def work() -> None:
        while (item := await queue.get()) is not None:
            sample, requests = item
            try:
                if checks.opened(sample):  # its files checked already: no thread hop
                    problems = checks.problems(sample)
                else:
                    problems = await asyncio.to_thread(checks.problems, sample)
                if problems:  # what `vqakit validate` says of this sample: not run on it
                    prediction = Prediction.failed(
                        sample.id, config.method, INVALID_SAMPLE, "; ".join(problems), model=config.model
                    )
                else:
                    prediction = await method.run(sample, context)
            except Exception as error:  # a failing sample must not stop the run
                prediction = Prediction.failed(
                    sample.id, config.method, "method", f"{type(error).__name__}: {error}", model=config.model
                )
            finally:
                context.frames.release(requests)
            try:
                await finished.put(prediction)
            except asyncio.CancelledError:
                stopped_waiting.append(prediction)  # answered: written with the last batch
                raise

    recording = asyncio.ensure_future(record())
    batched = getattr(context.model, "batched_cache", None)
    try:
        with batched() if batched is not None else nullcontext():
            running = asyncio.gather(feed(), *(work() for _ in range(workers)))
            # retrieved whatever ends it: a cancellation (Ctrl-C) is this task's to raise
            running.add_done_callback(lambda done: done.cancelled() or done.exception())
            try:
                await asyncio.wait({running, recording}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not running.done():  # writing failed, or this task is cancelled: they stop
                    running.cancel()
                    await asyncio.wait({running})
            if recording.done():  # it ends only after the workers: it failed
                recording.result()
            await running
    finally:
        if not recording.done():  # whatever is queued is written, after every worker
            await finished.put(None)
            await recording
        if context.model is not None:
            await context.model.aclose()


RECORD_BACKLOG = 1024  # finished predictions waiting to be written, at most (memory stays flat)
INVALID_SAMPLE = "invalid_sample"  # the error of a sample `vqakit validate` refuses


def _media_checks(context: MethodContext) -> SampleMediaChecks:
    """The checks validate runs on a sample's media, shared by eval (one per run)."""
    from vqakit.video import VideoMediaChecker

    linked = context.benchmark is not None and context.benchmark.card.linked_media
    return SampleMediaChecks(context.root, VideoMediaChecker(), linked=linked)


def _frames(config: EvalConfig, model: Any, pool: DecodePool | None) -> FrameProvider:
    """The run's frame provider: the shared frame store unless `--no-frame-cache`; decode jobs in
    `pool`'s processes where frames are encoded (in threads for models that take pixels)."""
    from vqakit.video import FrameStore

    store = FrameStore() if config.frame_cache else None
    encoded = getattr(model, "image_encoding", None) is not None
    executor = pool.ready if pool is not None and encoded else None
    # encoded frames are small (tens of KB); RGB arrays for local models are not. A video's
    # ordered pass holds up to half the limit for questions of later parts (`_pass`)
    limit = max(1024, 2 * config.concurrency * 16) if encoded else max(32, 2 * config.concurrency)
    return FrameProvider(store, executor, max_frames_in_flight=limit)


def make_context(
    config: EvalConfig, benchmark: Benchmark, protocol: Protocol, folder: Path, pool: DecodePool | None = None
) -> MethodContext:
    model = None
    if config.model is not None:
        from vqakit.models import Model

        settings = config.model_args or None
        limits = config.time_limits()
        fallback = (
            Model(config.fallback, concurrency=config.concurrency, settings=settings, **limits)
            if config.fallback
            else None
        )
        model = Model(
            config.model, concurrency=config.concurrency, fallback=fallback, settings=settings, **limits
        )
    return MethodContext(
        root=benchmark.root,
        protocol=protocol,
        model=model,
        seed=config.seed,
        options=config.options(),
        benchmark=benchmark,
        artifacts=folder,
        frames=_frames(config, model, pool),
    )


class EndpointStopped(Exception):
    """A run stopped because an endpoint's last requests all failed the same way."""

    def __init__(self, down: Any) -> None:
        super().__init__(str(down))
        self.down = down


def run_stopping(work: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(work)`, stopped (EndpointStopped) when the requests of its model calls to one
    endpoint keep failing the same way (`vqakit.models.stopping_failing_endpoints`): the work is
    cancelled, so what it finished (and recorded in its `finally`) is kept, and nothing more is
    asked of a server that is down."""
    from vqakit.models import stopping_failing_endpoints

    async def main() -> T:
        task = asyncio.current_task()
        tripped: list[Any] = []

        def stop(down: Any) -> None:
            tripped.append(down)
            if task is not None:
                task.cancel()

        with stopping_failing_endpoints(stop):
            try:
                return await work
            except asyncio.CancelledError:
                if tripped:
                    raise EndpointStopped(tripped[0]) from None
                raise

    return asyncio.run(main())


def run_local(
    samples: list[Any],
    config: EvalConfig,
    benchmark: Benchmark,
    protocol: Protocol,
    folder: Path,
    on_predictions: Record,
) -> FrameStats:
    """Run in this process; returns how the frames were had."""
    pool = DecodePool()
    context = make_context(config, benchmark, protocol, folder, pool)
    try:
        run_stopping(predict(samples, config, context, on_predictions))
    finally:
        pool.shutdown()
    return context.frames.stats
