"""The `ray` engine: the samples as Ray tasks on a local instance or the cluster at `ray_address`.

Samples are planned by video (`_plan.by_video`) and cut into batches, so that a task's samples
mostly share their videos and frames; each task runs the local engine's `predict` over its batch
and returns the predictions, which the driver records as tasks finish (one write and one sync a
task). At most a few tasks per CPU of the cluster are queued at once, so the driver's memory
does not grow with the benchmark.

Faults: Ray runs a task again on another worker when its worker or node dies
(`TASK_RETRIES`); a batch whose task still fails is sent again as a new task, up to
`BATCH_ATTEMPTS` times, and then its samples are recorded as failed (kind `engine`, retried on
resume). A sample is recorded once: a result for a sample already recorded is dropped.

Workers need vqakit installed, and the benchmark and run folders at the same paths (a filesystem
every host sees); `VQAKIT_CACHE_DIR` of the driver goes to the workers (`_ray.connect`).
"""

from __future__ import annotations

import json
import logging
import math
from functools import lru_cache
from pathlib import Path
from typing import Any

from vqakit.runner._config import EvalConfig
from vqakit.runner._engines import EndpointStopped, Record, make_context, predict, run_stopping
from vqakit.runner._plan import by_video
from vqakit.runner._ray import TASK_RETRIES, cluster_cpus, connect
from vqakit.schema import Benchmark, Prediction, Protocol

log = logging.getLogger(__name__)

BATCH_ATTEMPTS = 3
STOPPED = "endpoint_stopped"  # a batch's last line when its endpoint stopped it (`run_stopping`)
_STOP = json.dumps({STOPPED: ""})[:-3]
TASKS_PER_CPU = 3  # tasks queued at once per CPU of the cluster


def batch_size(samples: int, cpus: int) -> int:
    """Enough batches to keep every CPU busy a few times over, 4 to 256 samples each."""
    return max(4, min(256, math.ceil(samples / (4 * cpus))))


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
    context = make_context(config, _worker_benchmark(root), protocol, Path(folder))
    stopped = []
    try:
        run_stopping(predict(samples, config, context, found.extend))
    except EndpointStopped as error:  # the driver stops the run: said after what was finished
        stopped = [json.dumps({STOPPED: str(error)})]
    return [prediction.model_dump_json() for prediction in found] + stopped


def run_ray(
    samples: list[Any],
    config: EvalConfig,
    benchmark: Benchmark,
    protocol: Protocol,
    folder: Path,
    on_predictions: Record,
) -> None:
    ray = connect(config.ray_address)
    cpus = cluster_cpus(ray)
    task = ray.remote(max_retries=TASK_RETRIES)(_predict_batch)
    ordered = by_video(samples)
    size = batch_size(len(ordered), cpus)
    batches = [ordered[i : i + size] for i in range(0, len(ordered), size)]
    fixed = (config.model_dump_json(), str(benchmark.root), protocol.model_dump_json(), str(folder))
    pending: dict[Any, tuple[int, int]] = {}  # task -> (batch, attempt)
    waiting = list(range(len(batches)))[::-1]
    recorded: set[str] = set()

    def submit(index: int, attempt: int) -> None:
        payload = [sample.model_dump_json() for sample in batches[index]]
        pending[task.remote(*fixed, payload)] = (index, attempt)

    def record(predictions: list[Prediction]) -> None:
        fresh = [p for p in predictions if p.sample_id not in recorded]
        recorded.update(p.sample_id for p in fresh)
        if fresh:
            on_predictions(fresh)

    while waiting or pending:
        while waiting and len(pending) < TASKS_PER_CPU * cpus:
            submit(waiting.pop(), 1)
        done, _ = ray.wait(list(pending), num_returns=1)
        index, attempt = pending.pop(done[0])
        try:
            lines = ray.get(done[0])
            found = [Prediction.model_validate_json(text) for text in lines if not text.startswith(_STOP)]
            if len(found) < len(lines):  # an endpoint failing: stop the run, keeping what is done
                record(found)
                for running in pending:
                    ray.cancel(running)
                raise EndpointStopped(json.loads(lines[-1])[STOPPED])
        except ray.exceptions.RayError as error:
            why = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
            if attempt < BATCH_ATTEMPTS:
                log.warning("batch %d failed on the cluster (%s); sending it again", index, why)
                submit(index, attempt + 1)
                continue
            found = [
                Prediction.failed(
                    s.id, config.method, "engine", f"the Ray task failed: {why}", model=config.model
                )
                for s in batches[index]
            ]
        record(found)
