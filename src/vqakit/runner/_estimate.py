"""What a run will send, counted before it starts: the summary of `vqakit plan` and `vqakit eval
--dry-run`, and the limits `eval` checks before its first request.

The count goes through the run's own pieces, so that it is what eval sends: `check_run` (the
protocol with the run's overrides, the method's options), the method's `plan_calls` (its prompt
as rendered and its frames as named, `methods.PlannedCall`), the frame provider's exact frames,
the protocol's resize and the backend's longest side. Per request: images, their size as sent,
input tokens by the provider's published image rule (`models.image_token_rule`) plus the text
at about 4 characters a token, and the bytes of the request (JPEG at about `BYTES_PER_PIXEL`,
base64 on the wire). Nothing is decoded and no model is called; `estimate_runs` may time one real
request (the first sample's, the response cache left out) for the wall time.
"""

from __future__ import annotations

import asyncio
import math
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.methods import FrameRequest, Method, MethodContext, PlannedCall
from vqakit.runner._checks import CheckedRun, check_run
from vqakit.runner._config import EvalConfig, RunSetupError
from vqakit.runner._engines import _frames
from vqakit.runner._prices import Price, PriceTable
from vqakit.schema import Benchmark, Sample

BYTES_PER_PIXEL = 0.25  # JPEG at quality 90, 4:2:0, of real video frames (measured: docs/plan.md)
API_MAX_SIDE = 768  # the longest side API backends send images at (`models.Model`'s default)


class RequestLimitError(RunSetupError):
    """A run's requests exceed what the provider takes; said before the first request."""


@dataclass(frozen=True)
class _Described:
    """The run's model as the plan needs it: how it is sent images (no client, no key)."""

    spec: str
    image_encoding: dict[str, Any] | None
    image_max_side: int | None


@dataclass
class Request:
    """One request as counted: its sample, images, their size as sent, tokens and bytes."""

    sample: str
    images: int
    size: tuple[int, int] | None
    tokens: int | None
    bytes: int
    text_tokens: int
    native: tuple[int, int] | None = None  # the size of its video's frames, before any resizing


@dataclass
class RunEstimate:
    """What `estimate_run` found (see the module); `lines()` (in `_estimate_text`) says it."""

    config: EvalConfig
    folder: Path
    benchmark: str
    samples: int = 0
    planned: bool = True  # the method says what it sends (`plan_calls`)
    requests: int = 0
    video_requests: int = 0  # calls sending the video itself: not counted in tokens
    unplanned: list[str] = field(default_factory=list)  # samples whose frames cannot be named
    images: int = 0
    per_request: Counter[int] = field(default_factory=Counter)  # images a request -> requests
    sizes: Counter[tuple[int, int]] = field(default_factory=Counter)  # size as sent -> images
    tokens: int = 0  # input tokens in all (None-rule images left out)
    text_tokens: int = 0
    largest: Request | None = None  # by tokens where counted, else by images
    heaviest: Request | None = None  # by bytes
    rule: Any = None  # models.TokenRule
    limits: Any = None  # models.RequestLimits
    max_side: int | None = None  # the longest side the backend sends images at
    # by the native size of a request's frames: [most images, most text tokens] of a request
    shapes: dict[tuple[int, int], list[int]] = field(default_factory=dict)
    context: int | None = None  # the model's context length, where its server reports it
    frames: int = 0  # distinct frames sent
    frames_stored: int | None = None  # of which in the frame store (None: no store)
    videos: int = 0
    refusals: list[str] = field(default_factory=list)
    price: tuple[str, Price] | None = None
    request_s: float | None = None  # one timed request
    timing_note: str = ""

    def add(self, request: Request) -> None:
        self.requests += 1
        self.images += request.images
        self.per_request[request.images] += 1
        if request.size is not None:
            self.sizes[request.size] += request.images
        if request.native is not None:
            most = self.shapes.setdefault(request.native, [0, 0])
            most[0], most[1] = max(most[0], request.images), max(most[1], request.text_tokens)
        self.tokens += request.tokens or 0
        self.text_tokens += request.text_tokens
        key = (request.tokens or 0, request.images)
        if self.largest is None or key > (self.largest.tokens or 0, self.largest.images):
            self.largest = request
        if self.heaviest is None or request.bytes > self.heaviest.bytes:
            self.heaviest = request


@lru_cache(maxsize=4096)
def _display_size(path: str) -> tuple[int, int]:
    from vqakit.video import probe

    return probe(path).display_size


def sent_size(request: FrameRequest, max_side: int | None) -> tuple[int, int]:
    """The size the request's frames reach the model at: the protocol's resize, then the
    backend's longest side."""
    from vqakit.models import shrunk_size

    width, height = _display_size(request.path)
    if request.resize is not None:
        width, height = request.resize.output_size(width, height)
    return shrunk_size(width, height, max_side)


class Counting:
    """Counts the requests of a run's samples (see the module)."""

    def __init__(self, config: EvalConfig, benchmark: Benchmark, checked: CheckedRun, folder: Path) -> None:
        from vqakit.models import image_token_rule, parse_model_spec, request_limits, sent_encoding

        self.config, self.benchmark, self.checked = config, benchmark, checked
        spec = parse_model_spec(config.model) if config.model else None
        encoding = sent_encoding(config.model) if config.model else None
        self.max_side = API_MAX_SIDE if encoding is not None else None
        model = _Described(str(config.model), encoding, self.max_side)
        self.rule = image_token_rule(spec.backend, spec.model) if spec else None
        self.limits = request_limits(spec.backend, spec.model) if spec else None
        self.system = (config.model_args or {}).get("system") or ""
        self.context = MethodContext(
            root=benchmark.root,
            protocol=checked.protocol,
            model=model,
            seed=config.seed,
            options=checked.options,
            benchmark=benchmark,
            artifacts=folder,
            frames=_frames(config, model, None),
        )

    def request(self, sample: Sample, call: PlannedCall) -> Request:
        from vqakit.models import text_tokens

        text = text_tokens(self.system + call.text)
        images = sum(len(frames.numbers) for frames in call.frames)
        size = sent_size(call.frames[0], self.max_side) if call.frames else None
        pixels = sum(len(f.numbers) * math.prod(sent_size(f, self.max_side)) for f in call.frames)
        tokens = None
        if self.rule is not None:
            tokens = text + sum(
                len(f.numbers) * self.rule.tokens(*sent_size(f, self.max_side)) for f in call.frames
            )
        wire = int(pixels * BYTES_PER_PIXEL * 4 / 3) + len(call.text.encode()) + len(self.system.encode())
        native = _display_size(call.frames[0].path) if call.frames else None
        return Request(sample.id, images, size, tokens, wire, text, native)

    def count(
        self, found: RunEstimate, samples: Iterable[Sample], method: Method, keys: set[str] | None
    ) -> None:
        """Count every sample's requests into `found` (and the frame keys they send into `keys`)."""
        videos: set[str] = set()
        for sample in samples:
            found.samples += 1
            if method.plan_calls is None:
                continue
            try:
                calls = method.plan_calls(sample, self.context)
            except Exception as error:  # the sample fails the same way when the run reaches it
                if len(found.unplanned) < 5:
                    found.unplanned.append(f"{sample.id}: {type(error).__name__}: {error}")
                continue
            for call in calls:
                if call.video:
                    found.video_requests += 1
                found.add(self.request(sample, call))
                for frames in call.frames:
                    videos.add(frames.digest)
                    if keys is not None:
                        keys.update(frames.frame_keys)
        found.videos = len(videos)


def estimate_run(
    config: EvalConfig,
    benchmark: Benchmark,
    folder: Path,
    *,
    prices: PriceTable | None = None,
    time_request: bool = False,
    served_context: Callable[[str], int | None] | None = None,
) -> RunEstimate:
    """Count what the run of `config` will send (see the module); refusals where a request
    exceeds a provider's published limit or the context its server reports."""
    from vqakit.runner._limits import refusals

    checked = check_run(config, benchmark, need_keys=False)
    counting = Counting(config, benchmark, checked, folder)
    found = RunEstimate(
        config,
        folder,
        benchmark.card.name,
        rule=counting.rule,
        limits=counting.limits,
        max_side=counting.max_side,
    )
    found.planned = checked.method.plan_calls is not None or not checked.method.needs_model
    samples = benchmark.samples[: config.limit] if config.limit else benchmark.samples
    store = counting.context.frames.store
    keys: set[str] = set()
    counting.count(found, samples, checked.method, keys)
    found.frames = len(keys)
    if store is not None:
        found.frames_stored = len(keys) - len(store.missing(keys)) if keys else 0
    if config.model and served_context is not None:
        found.context = served_context(config.model)
    found.refusals = refusals(found, checked.protocol, config)
    if prices is not None and config.model:
        found.price = prices.price(config.model)
    if time_request and config.model and found.planned and len(samples):
        found.request_s, found.timing_note = timed_request(config, benchmark, checked, samples)
    return found


def estimate_runs(
    settings: dict[str, Any],
    out: str | Path | None = None,
    *,
    prices: PriceTable | None = None,
    time_request: bool = True,
) -> list[RunEstimate]:
    """`estimate_run` for each run `vqakit eval` would make with these settings."""
    from vqakit.models import served_context
    from vqakit.runner._evaluate import plan_eval  # which imports the runner, which imports this

    plan = plan_eval(settings, out)
    benchmark = plan.benchmark or load_benchmark(settings["bench"])
    return [
        estimate_run(
            config, benchmark, folder, prices=prices, time_request=time_request, served_context=served_context
        )
        for config, folder in plan.configs
    ]


def check_request_limits(config: EvalConfig, benchmark: Benchmark, checked: CheckedRun) -> None:
    """Before a run's first request: RequestLimitError when a request would exceed what its
    provider publishes it takes, or the context its server reports (nothing is checked for a
    method that does not say what it sends, or a backend with nothing known)."""
    from vqakit.models import image_token_rule, parse_model_spec, request_limits, served_context
    from vqakit.runner._limits import refusals

    if config.model is None or checked.method.plan_calls is None:
        return
    spec = parse_model_spec(config.model)
    known = request_limits(spec.backend, spec.model) is not None
    # a server's context is asked for only where the model's image rule is known
    context = None
    if spec.base_url is not None and image_token_rule(spec.backend, spec.model) is not None:
        context = served_context(config.model)
    if not known and context is None:
        return
    counting = Counting(config, benchmark, checked, Path(tempfile.gettempdir()))
    found = RunEstimate(
        config,
        Path(),
        benchmark.card.name,
        rule=counting.rule,
        limits=counting.limits,
        max_side=counting.max_side,
    )
    found.context = context
    samples = benchmark.samples[: config.limit] if config.limit else benchmark.samples
    counting.count(found, samples, checked.method, None)
    problems = refusals(found, checked.protocol, config)
    if problems:
        raise RequestLimitError("; ".join(problems))


def timed_request(
    config: EvalConfig, benchmark: Benchmark, checked: CheckedRun, samples: Sequence[Sample]
) -> tuple[float | None, str]:
    """(seconds the model took on the first sample's request, sent as the run sends it but past
    the response cache; a note on what was timed, or why nothing was)."""
    from vqakit.methods import FrameProvider
    from vqakit.models import Model, check_model_spec

    try:
        check_model_spec(config.model or "")
    except ValueError as error:
        return None, f"not timed: {error}"
    sample = samples[0]

    async def one() -> Any:
        model = Model(config.model or "", concurrency=1, cache=False, settings=config.model_args or None)
        with tempfile.TemporaryDirectory() as scratch:
            context = MethodContext(
                root=benchmark.root, protocol=checked.protocol, model=model, seed=config.seed,
                options=checked.options, benchmark=benchmark, artifacts=Path(scratch), frames=FrameProvider(),
            )  # fmt: skip
            try:
                return await checked.method.run(sample, context)
            finally:
                await model.aclose()

    started = time.monotonic()
    prediction = asyncio.run(one())
    if prediction.error is not None:
        failed = f"{prediction.error.type}: {prediction.error.message}"
        return None, f"not timed: the request for {sample.id} failed ({failed})"
    seconds = (
        prediction.latency_s / max(1, prediction.calls) if prediction.calls else time.monotonic() - started
    )
    return seconds, f"one request ({sample.id}) took {seconds:.2f} s"
