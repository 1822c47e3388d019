"""The method registry: how a sample becomes a prediction, by name, with the options it owns.

A method is one async function `(sample, context) -> Prediction`, registered with `@method`. It
declares its options as a pydantic model (checked before a run starts and recorded in
config.yaml; users set them with `--method-arg KEY=VALUE`), an optional `preflight` that refuses
a benchmark or options it cannot work with before any folder is written, and an optional
`describe` line for the report header (what the model was shown).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from vqakit.extras import has_extra, install_line
from vqakit.files import did_you_mean
from vqakit.methods._frames import FrameProvider, FrameRequest
from vqakit.plugins import load_plugins, load_systems
from vqakit.schema import Benchmark, Prediction, Protocol, Sample

MethodFn = Callable[[Sample, "MethodContext"], Awaitable[Prediction]]
PlanFn = Callable[[Sample, "MethodContext"], list[FrameRequest]]


@dataclass(frozen=True)
class PlannedCall:
    """One model call a method will make for a sample, as `vqakit plan` counts it: the text it
    sends (prompt, options, subtitles) and the frames, named, not decoded; `video`: it sends the
    video itself instead (`--input video`)."""

    text: str
    frames: tuple[FrameRequest, ...] = ()
    video: bool = False


CallsFn = Callable[[Sample, "MethodContext"], list[PlannedCall]]


class NoOptions(BaseModel):
    """Options of a method that has none."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class MethodSetupError(ValueError):
    """A method cannot run with this benchmark or these options; said before the run starts."""


@dataclass(frozen=True)
class Method:
    name: str
    run: MethodFn
    needs_model: bool
    options: type[BaseModel] = NoOptions
    preflight: Callable[[Benchmark, Any], None] | None = None  # raises MethodSetupError
    describe: Callable[[Any, Protocol], str] | None = None  # the report header's "shown" line
    summary: str = ""  # one line for listings
    extras: tuple[str, ...] = ()  # pip extras it needs (vqakit.extras), checked before a run
    # whether it sends the frames of the run's frame spec (`--frames`), given its options; a
    # method that does not (text-only baselines, retrieval methods with their own frames) may
    # run with a spec that samples none
    uses_frames: bool | Callable[[Any], bool] = True
    # a method whose answers come from a person: who, from its options (manifest.json `participant`)
    person: Callable[[Any], str | None] | None = None
    takes_video: bool = False  # can send the video itself (`--input video`), not only frames
    # the frames it will ask of `context.frames` for a sample, so the runner can plan decoding
    plan_frames: PlanFn | None = None
    # the model calls it will make for a sample, so `vqakit plan` can count what a run sends
    plan_calls: CallsFn | None = None

    def sends_frames(self, options: BaseModel) -> bool:
        return self.uses_frames(options) if callable(self.uses_frames) else self.uses_frames

    def parse_options(self, values: dict[str, Any] | None) -> BaseModel:
        """The method's options from `values` (strings from the command line are converted);
        unknown keys and bad values raise MethodSetupError naming them."""
        values = dict(values or {})
        declared = option_names(self.options)
        unknown = sorted(key for key in values if key not in declared)
        if unknown:
            known = ", ".join(sorted(n for n in declared if n in self.options.model_fields)) or "none"
            raise MethodSetupError(
                f"method {self.name} has no option {', '.join(unknown)} (its options: {known})"
            )
        try:
            return self.options.model_validate(values)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'options'}: {e['msg'].removeprefix('Value error, ')}"
                for e in error.errors()
            )
            raise MethodSetupError(f"method {self.name}: {problems}") from None

    def check(self, benchmark: Benchmark, values: dict[str, Any] | None) -> BaseModel:
        """Everything a run of this method needs, checked before it starts: its extras, its
        options and its preflight; returns the validated options."""
        for extra in self.extras:
            if not has_extra(extra):
                raise MethodSetupError(f"method {self.name} needs the {extra} extra: {install_line(extra)}")
        options = self.parse_options(values)
        if self.preflight is not None:
            self.preflight(benchmark, options)
        return options

    def participant(self, options: BaseModel) -> str | None:
        return self.person(options) if self.person is not None else None

    def shown(self, options: BaseModel, protocol: Protocol) -> str:
        if self.describe is not None:
            return self.describe(options, protocol)
        if protocol.input == "video":
            return f"the video ({protocol.frames} as its frame rate), prompt {protocol.prompt}"
        if not self.sends_frames(options):
            return f"no video, prompt {protocol.prompt}"
        return f"frames {protocol.frames}, prompt {protocol.prompt}"


def option_names(options: type[BaseModel]) -> set[str]:
    """Every key `parse_options` accepts: field names and their validation aliases (earlier
    names of an option)."""
    names = set(options.model_fields)
    for info in options.model_fields.values():
        alias = info.validation_alias
        choices = getattr(alias, "choices", None)
        if isinstance(alias, str):
            names.add(alias)
        elif choices:
            names.update(choice for choice in choices if isinstance(choice, str))
    return names


_METHODS: dict[str, Method] = {}


def method(
    name: str,
    *,
    needs_model: bool,
    options: type[BaseModel] = NoOptions,
    preflight: Callable[[Benchmark, Any], None] | None = None,
    describe: Callable[[Any, Protocol], str] | None = None,
    extras: tuple[str, ...] = (),
    uses_frames: bool | Callable[[Any], bool] = True,
    person: Callable[[Any], str | None] | None = None,
    takes_video: bool = False,
    plan_frames: PlanFn | None = None,
    plan_calls: CallsFn | None = None,
) -> Callable[[MethodFn], MethodFn]:
    """Decorator registering a method function under `name` (one function may take several).
    `uses_frames`: whether it sends the frames of the run's frame spec (or a function of its
    options saying so); a run whose spec samples no frames is refused for such a method.
    `plan_frames(sample, context)` names the frames the method will ask `context.frames` for, so the
    runner can decode them ahead, video by video."""

    def register(fn: MethodFn) -> MethodFn:
        summary = (fn.__doc__ or "").strip().splitlines()[0] if fn.__doc__ else ""
        _METHODS[name] = Method(
            name,
            fn,
            needs_model,
            options,
            preflight,
            describe,
            summary,
            extras,
            uses_frames,
            person,
            takes_video,
            plan_frames,
            plan_calls,
        )
        return fn

    return register


@dataclass(frozen=True)
class DeclaredMethod:
    """A method known by name before the module that registers it is imported."""

    name: str
    module: str  # importing it registers the method (`@method`)
    user_runs: bool = True  # False: its answers come from elsewhere; `eval --help` does not offer it


_DECLARED: dict[str, DeclaredMethod] = {}


def declare_method(name: str, module: str, *, user_runs: bool = True) -> None:
    """Say that importing `module` (a full name) registers the method `name`: looking the method
    up imports only that module, and `eval --help` lists it without importing anything.
    `user_runs=False` for a method a user does not run with `vqakit eval` because its answers
    come from elsewhere (a person in the studio, a table of answers written by another tool)."""
    _DECLARED[name] = DeclaredMethod(name, module, user_runs)


# vqakit's own methods (a system declares its own in its package, `vqakit.plugins`)
for _name, _module, _user_runs in (
    ("direct", "_direct", True),
    ("blind", "_direct", True),
    ("random", "_baselines", True),
    ("text-similarity", "_baselines", True),
    ("human", "_human", False),
):
    declare_method(_name, f"vqakit.methods.{_module}", user_runs=_user_runs)


def methods() -> dict[str, Method]:
    """Every method, registered: imports every module that registers one."""
    load_plugins()
    for declared in list(_DECLARED.values()):
        importlib.import_module(declared.module)
    return dict(_METHODS)


def user_methods() -> list[str]:
    """The names of the methods users run with `vqakit eval` (vqakit's and every system's), from
    what is declared and registered, without importing any method."""
    load_systems()
    hidden = {name for name, declared in _DECLARED.items() if not declared.user_runs}
    return sorted({*_DECLARED, *_METHODS} - hidden)


def get_method(name: str) -> Method:
    """The method registered as `name`, importing only the module that declares it where one
    does (else every plug-in); MethodSetupError naming the methods users run when none is."""
    found = _METHODS.get(name)
    if found is None:
        if name not in _DECLARED:
            load_systems()
        if name in _DECLARED:
            importlib.import_module(_DECLARED[name].module)
        found = _METHODS.get(name) or methods().get(name)
    if found is None:
        known = user_methods()
        raise MethodSetupError(
            f"unknown method {name!r}; {did_you_mean(name, known)}known: {', '.join(known)}"
        )
    return found


@dataclass
class MethodContext:
    """What a method works with for one run."""

    root: Path  # benchmark folder
    protocol: Protocol  # frames, short_side, prompt, subtitles (already merged with overrides)
    model: Any = None  # vqakit.models.Model, for methods that need one
    seed: int = 0
    options: Any = field(default_factory=NoOptions)  # the method's validated options
    shared: dict[str, Any] = field(default_factory=dict)  # per-run objects (e.g. an embedder)
    benchmark: Benchmark | None = None  # the loaded benchmark (corpora for retrieval methods)
    artifacts: Path | None = None  # the run folder, where a method may keep what it sent (`_sent`)
    frames: FrameProvider = field(default_factory=FrameProvider)  # video frames, decoded once per run
