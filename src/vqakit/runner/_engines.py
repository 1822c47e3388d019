"""Engines: where the method runs over the samples still to do.

- `local`: asyncio in this process, at most `concurrency` samples at a time.
- `ray`: samples in small batches as Ray tasks, on a local instance or the cluster at
  `ray_address`; each task runs the same async loop as the local engine and returns its
  predictions, which the driver appends to the run folder as batches finish. Workers need
  vqakit installed and the benchmark folder at the same path.
Both call the same method with the same context, so predictions are the same (timings aside).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

from vqakit.methods import FrameProvider, FrameStats, MethodContext, get_method
from vqakit.runner._config import EvalConfig
from vqakit.runner._decode_pool import DecodePool
from vqakit.runner._plan import planned
from vqakit.schema import Benchmark, Prediction, Protocol

RAY_BATCH = 4


async def predict(
    samples: list[Any],
    config: EvalConfig,
    context: MethodContext,
    on_prediction: Callable[[Prediction], None],
) -> None:
    """Run the method over samples, `concurrency` at a time, planned by video (`_plan`); a
    failing sample becomes an error. Memory stays bounded whatever the number of samples: the
    workers take samples from a short queue that the planner fills as they go."""
    method = get_method(config.method)
    workers = max(1, config.concurrency)
    queue: asyncio.Queue = asyncio.Queue(maxsize=2 * workers)
    # predictions are recorded (appended and synced) one at a time, off the event loop
    recorder = ThreadPoolExecutor(1, thread_name_prefix="vqakit-record")
    loop = asyncio.get_running_loop()

    async def feed() -> None:
        try:
            async for item in planned(samples, method, context):
                await queue.put(item)
        finally:
            for _ in range(workers):
                await queue.put(None)

    async def work() -> None:
        while (item := await queue.get()) is not None:
            sample, requests = item
            try:
                prediction = await method.run(sample, context)
            except Exception as error:  # a failing sample must not stop the run
                prediction = Prediction.failed(
                    sample.id, config.method, "method", f"{type(error).__name__}: {error}", model=config.model
                )
            finally:
                context.frames.release(requests)
            await loop.run_in_executor(recorder, on_prediction, prediction)

    try:
        await asyncio.gather(feed(), *(work() for _ in range(workers)))
    finally:
        recorder.shutdown(wait=True)
        if context.model is not None:
            await context.model.aclose()


def _frames(config: EvalConfig, model: Any, pool: DecodePool | None) -> FrameProvider:
    """The run's frame provider: the shared frame store unless `--no-frame-cache`; decode jobs in
    `pool`'s processes where frames are encoded (in threads for models that take pixels)."""
    from vqakit.video import FrameStore

    store = FrameStore() if config.frame_cache else None
    encoded = model is not None and model.image_encoding is not None
    executor = pool.ready if pool is not None and encoded else None
    # encoded frames are small (tens of KB); RGB arrays for local models are not
    limit = max(256, 4 * config.concurrency * 32) if encoded else max(32, 2 * config.concurrency)
    return FrameProvider(store, executor, max_frames_in_flight=limit)


def _context(
    config: EvalConfig, benchmark: Benchmark, protocol: Protocol, folder: Path, pool: DecodePool | None = None
) -> MethodContext:
    model = None
    if config.model is not None:
        from vqakit.models import Model

        settings = config.model_args or None
        fallback = (
            Model(config.fallback, concurrency=config.concurrency, settings=settings)
            if config.fallback
            else None
        )
        model = Model(config.model, concurrency=config.concurrency, fallback=fallback, settings=settings)
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


def run_local(
    samples: list[Any],
    config: EvalConfig,
    benchmark: Benchmark,
    protocol: Protocol,
    folder: Path,
    on_prediction: Callable[[Prediction], None],
) -> FrameStats:
    """Run in this process; returns how the frames were had."""
    pool = DecodePool()
    context = _context(config, benchmark, protocol, folder, pool)
    try:
        asyncio.run(predict(samples, config, context, on_prediction))
    finally:
        pool.shutdown()
    return context.frames.stats


@lru_cache(maxsize=4)
def _worker_benchmark(root: str) -> Benchmark:
    """A Ray worker loads the benchmark once, not once per batch."""
    from vqakit.benchmarks import load_benchmark

    return load_benchmark(root)


def _predict_batch(
    config_json: str, root: str, protocol_json: str, folder: str, samples_json: list[str]
) -> list[str]:
    """Body of one Ray task: plain strings in and out, so nothing but vqakit must be importable."""
    from vqakit.schema import Sample

    config = EvalConfig.model_validate_json(config_json)
    samples = [Sample.model_validate_json(text) for text in samples_json]
    found: list[Prediction] = []
    protocol = Protocol.model_validate_json(protocol_json)
    context = _context(config, _worker_benchmark(root), protocol, Path(folder))
    asyncio.run(predict(samples, config, context, found.append))
    return [prediction.model_dump_json() for prediction in found]


def run_ray(
    samples: list[Any],
    config: EvalConfig,
    benchmark: Benchmark,
    protocol: Protocol,
    folder: Path,
    on_prediction: Callable[[Prediction], None],
) -> None:
    try:
        import ray
    except ImportError:
        raise ValueError("the ray engine needs Ray: pip install 'vqakit[ray]'") from None
    if not ray.is_initialized():
        ray.init(
            address=config.ray_address, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True
        )
    task = ray.remote(_predict_batch)
    config_json, protocol_json = config.model_dump_json(), protocol.model_dump_json()
    batches = [samples[i : i + RAY_BATCH] for i in range(0, len(samples), RAY_BATCH)]
    pending = [
        task.remote(
            config_json, str(benchmark.root), protocol_json, str(folder), [s.model_dump_json() for s in batch]
        )
        for batch in batches
    ]
    while pending:
        finished, pending = ray.wait(pending, num_returns=1)
        for text in ray.get(finished[0]):
            on_prediction(Prediction.model_validate_json(text))
