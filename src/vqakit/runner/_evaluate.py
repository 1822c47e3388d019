"""`vqakit eval` as one function: which runs to make, where, and making them.

With a model, one run of the chosen method (default `direct`). Without one, the offline baselines
(`random` and `text-similarity`), skipping text-similarity when its extra is not installed.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vqakit.benchmarks import load_benchmark
from vqakit.files import slug
from vqakit.methods import MethodSetupError, get_method
from vqakit.runner._config import EvalConfig, make_config
from vqakit.runner._run import RunOutcome, RunProgress, run_eval
from vqakit.schema import Benchmark

OFFLINE_BASELINES = ("random", "text-similarity")
EMBED_EXTRA = "pip install 'vqakit[embed]'"


def run_name(benchmark: Benchmark) -> str:
    """What the run folders of a benchmark are named after: the folder the user gave (a shipped
    benchmark's is its name) and its card's version, unless the folder's name ends with it
    already; so two copies or versions of one benchmark never share a run folder."""
    name = benchmark.root.resolve().name
    version = slug(benchmark.card.version, max_length=40)
    return name if name.endswith(version) else f"{name}-{version}"


def default_run_folder(
    benchmark: Benchmark | str,
    method: str,
    model: str | None = None,
    root: str | Path = "runs",
    suffix: str = "",
) -> Path:
    """`runs/<benchmark>-<method>[-<model>][-<suffix>]`: the benchmark by its folder and version
    (`run_name`; a string is taken as it is), the model by the end of its spec."""
    named = benchmark if isinstance(benchmark, str) else run_name(benchmark)
    name = f"{slug(named, max_length=120)}-{method}"
    if model:
        name += "-" + slug(model.split("#")[-1], empty="model")
    return Path(root) / (f"{name}-{suffix}" if suffix else name)


@dataclass
class EvalPlan:
    configs: list[tuple[EvalConfig, Path]]
    notes: list[str] = field(default_factory=list)
    benchmark: Benchmark | None = None  # loaded once, for every run of the plan


def plan_eval(settings: dict[str, Any], out: str | Path | None = None) -> EvalPlan:
    """The runs `vqakit eval` makes from its settings (the fields of `EvalConfig`, `method`
    possibly None): their configs and folders, and notes for the user."""
    benchmark = load_benchmark(settings["bench"])
    model, method = settings.get("model"), settings.get("method")
    notes: list[str] = []
    if model is None:
        chosen = [method] if method else list(OFFLINE_BASELINES)
        if "text-similarity" in chosen and importlib.util.find_spec("sentence_transformers") is None:
            if method:
                raise MethodSetupError(f"text-similarity needs the embed extra: {EMBED_EXTRA}")
            notes.append(f"Skipping text-similarity: it needs the embed extra ({EMBED_EXTRA}).")
            chosen.remove("text-similarity")
        needing = [name for name in chosen if get_method(name).needs_model]
        if needing:
            raise MethodSetupError(f"method {needing[0]} needs --model (see `vqakit models`)")
        notes.append(
            "No --model given: running the offline baselines " + ", ".join(chosen) + ". These are "
            "baselines, not a model's results; pass e.g. --model openai-compatible:http://localhost:8000/v1#MODEL."
        )
    else:
        chosen = [method or "direct"]
    configs = []
    for name in chosen:
        config = make_config({**settings, "method": name})
        if out is not None and len(chosen) == 1:
            folder = Path(out)
        else:
            folder = default_run_folder(benchmark, name, model, out or "runs")
        configs.append((config, folder))
    return EvalPlan(configs, notes, benchmark)


def evaluate(
    settings: dict[str, Any],
    out: str | Path | None = None,
    *,
    new_run: bool = False,
    on_notes: Callable[[list[str]], None] | None = None,
    on_start: Callable[[EvalConfig, Path], None] | None = None,
    on_progress: Callable[[RunProgress], None] | None = None,
    on_done: Callable[[EvalConfig, RunOutcome], None] | None = None,
    set_aside_bad_lines: bool = False,
    preflight: bool = True,
) -> list[RunOutcome]:
    """Make every run of `plan_eval` in turn (each resumable), reporting as they go
    (`set_aside_bad_lines`: see `run_eval`). `preflight`: each run's model endpoints are checked
    before its folder is written (`run_eval`)."""
    plan = plan_eval(settings, out)
    if on_notes and plan.notes:
        on_notes(plan.notes)
    note = (lambda text: on_notes([text])) if on_notes else None
    outcomes = []
    for config, folder in plan.configs:
        if on_start:
            on_start(config, folder)
        outcome = run_eval(
            config,
            folder,
            new_run=new_run,
            on_progress=on_progress,
            on_note=note,
            benchmark=plan.benchmark,
            set_aside_bad_lines=set_aside_bad_lines,
            preflight=preflight,
        )
        outcomes.append(outcome)
        if on_done:
            on_done(config, outcome)
    return outcomes
