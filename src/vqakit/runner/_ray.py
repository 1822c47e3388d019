"""Ray, for the engines that use it: connecting to a cluster, and models whose calls run as Ray
tasks (`on_engine`), which is how builders run their model steps on the eval engine's cluster.

`connect(address)` joins the cluster at `address` (`ray://...` for Ray Client, or the head's
`host:port`) or starts a local instance when it is None. The driver's `VQAKIT_CACHE_DIR`, when
set, is handed to the workers (a cache folder every host sees shares the response cache and the
frame store); otherwise each host uses its own default.
"""

from __future__ import annotations

import asyncio
import os
from functools import lru_cache
from typing import Any

TASK_RETRIES = 5  # Ray runs a task again when its worker or node dies, this many times


def connect(address: str | None) -> Any:
    """The `ray` module, connected (once per process)."""
    try:
        import ray
    except ImportError:
        raise ValueError("the ray engine needs Ray: pip install 'vqakit[ray]'") from None
    if not ray.is_initialized():
        env = {name: os.environ[name] for name in ("VQAKIT_CACHE_DIR",) if os.environ.get(name)}
        ray.init(
            address=address,
            include_dashboard=False,
            log_to_driver=False,
            ignore_reinit_error=True,
            runtime_env={"env_vars": env} if env else None,
        )
    return ray


def cluster_cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


@lru_cache(maxsize=16)
def _worker_model(spec: str) -> Any:
    from vqakit.models import Model

    return Model(spec)


def _complete(model: Any, messages: list, sample_id: str | None, settings: dict) -> Any:
    """Body of one model call as a Ray task. `model` is a spec (this worker's `Model` for it,
    which carries its settings) or a model object that travelled as itself."""
    if isinstance(model, str):
        model = _worker_model(model)

    async def call() -> Any:
        try:
            return await model.complete(messages, sample_id=sample_id, **settings)
        finally:
            await model.aclose()  # its connections belong to this call's event loop

    return asyncio.run(call())


class RayModel:
    """A model whose `complete` runs as a Ray task on the cluster (at most `concurrency` calls at
    a time); everything else (spec, settings, sizes) is the local model's. A `vqakit.models.Model`
    travels as its spec (every setting is in it) and is made once per worker, so calls are
    answered as locally, from the same response cache where the cache folder is shared; any other
    model object (a plug-in's, a test double) travels as itself and must pickle."""

    def __init__(self, model: Any, address: str | None) -> None:
        from vqakit.models import Model

        self.model = model
        self._ray = connect(address)
        self._task = self._ray.remote(max_retries=TASK_RETRIES)(_complete)
        self._sent = str(model) if isinstance(model, Model) else self._ray.put(model)
        self._gate: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.remote_calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.model, name)

    def __str__(self) -> str:
        return str(self.model)

    async def complete(self, messages: list, *, sample_id: str | None = None, **settings: Any) -> Any:
        loop = asyncio.get_running_loop()
        if self._gate is None or self._loop is not loop:
            self._gate, self._loop = asyncio.Semaphore(getattr(self.model, "concurrency", 8)), loop
        async with self._gate:
            self.remote_calls += 1
            return await self._task.remote(self._sent, messages, sample_id, settings)

    async def aclose(self) -> None:
        await self.model.aclose()


def on_engine(model: Any, engine: str = "local", address: str | None = None) -> Any:
    """`model` as it runs on `engine`: itself for `local`, a `RayModel` for `ray`."""
    if engine == "local" or model is None:
        return model
    if engine != "ray":
        raise ValueError(f"unknown engine {engine!r}: local or ray")
    return RayModel(model, address)
