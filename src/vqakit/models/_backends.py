"""The model backend registry: which spec forms exist (`backend:model`) and what makes each.

A backend is registered with `@register_backend(name, form=..., example=..., summary=...)` on
its factory: usually the backend class itself, called as `factory(spec, request_timeout_s=...,
image_max_side=..., **backend_options)` (`Backend` in `_model` says what it must do). What is
registered is also what the rest of vqakit asks about a backend instead of naming it:

- `form`, `example`, `summary`: `vqakit models` and every spec error;
- `api`: a remote service, sent images as JPEG at `image_max_side` (`image_encoding`), whose
  empty replies are asked again even for deterministic requests;
- `base_url`: the spec is `name:<http(s) base url>#<model>` (`ModelSpec.base_url`);
- `keys`, `key_required`, `key_help`: the environment variables of its key (read with
  `api_key`, redacted from everything stored), whether `check_model_spec` refuses a spec
  without one, and how to give a key (said when a key is found inside a spec);
- `requires`, `install`, `check`: what `check_model_spec` checks before a run (modules, then the
  backend's own check, in seconds and without loading weights);
- `unsupported`: settings it cannot send (`check_supported`);
- `video`: what it takes of `--input video` (`clip` or `file`), None for frames only;
- `cached`: whether its replies go in the response cache (`replay:` has no need);
- `model_names`: a regular expression matching the model names it usually serves, only to
  suggest a spec when a bare model name is given (`--model gpt-4o` -> `openai:gpt-4o`);
- `preflight`: `async check(session, spec, timeout_s)`, the one cheap request made before a run
  (`_preflight`): raises `EndpointProblem`, or returns a note or None; None for no check.

vqakit's own backends register in their modules (`BUILT_IN`, imported on the first look-up);
others come from packages declaring a `vqakit.backends` entry point (`vqakit.plugins`), and
last, for a name still unknown, from the benchmark systems.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

if TYPE_CHECKING:
    from vqakit.models._settings import GenerationSettings
    from vqakit.models._spec import ModelSpec

F = TypeVar("F", bound=Callable[..., Any])

# modules of vqakit's own backends (the one line to add a built-in backend to)
BUILT_IN = ("_openai", "_anthropic", "_gemini", "_hf", "_replay")


@dataclass(frozen=True)
class BackendInfo:
    """One registered backend (see the module for what each field is used for)."""

    name: str
    factory: Callable[..., Any]
    form: str
    example: str
    summary: str
    api: bool = False
    base_url: bool = False
    keys: tuple[str, ...] = ()
    key_required: bool = True
    key_help: str = ""
    requires: tuple[str, ...] = ()
    install: str = ""
    check: Callable[[ModelSpec], None] | None = None
    unsupported: Callable[[GenerationSettings], list[str]] | None = None
    video: Literal["clip", "file"] | None = None
    cached: bool = True
    preflight: Callable[..., Awaitable[str | None]] | None = None
    model_names: str = ""

    def how_to_give_a_key(self) -> str:
        """One clause: how this backend is given its key (never inside the spec)."""
        if self.key_help:
            return self.key_help
        if self.keys:
            return f"set {' or '.join(self.keys)} in the environment"
        return f"{self.name}: takes no key"


_BACKENDS: dict[str, BackendInfo] = {}
_lock = threading.RLock()
_state = {"built_in": False, "loading": False}


def register_backend(
    name: str,
    *,
    form: str,
    example: str,
    summary: str,
    api: bool = False,
    base_url: bool = False,
    keys: Sequence[str] = (),
    key_required: bool = True,
    key_help: str = "",
    requires: Sequence[str] = (),
    install: str = "",
    check: Callable[[ModelSpec], None] | None = None,
    unsupported: Callable[[GenerationSettings], list[str]] | None = None,
    video: Literal["clip", "file"] | None = None,
    cached: bool = True,
    preflight: Callable[..., Awaitable[str | None]] | None = None,
    model_names: str = "",
) -> Callable[[F], F]:
    """Decorator: make `factory` the backend of specs `name:...` (see the module for the fields).
    A name taken by another factory is refused; the same factory registered again replaces it."""
    if not name or ":" in name or name != name.strip():
        raise ValueError(f"backend name {name!r}: a word without ':' or spaces")

    def decorate(factory: F) -> F:
        info = BackendInfo(
            name=name,
            factory=factory,
            form=form,
            example=example,
            summary=summary,
            api=api,
            base_url=base_url,
            keys=tuple(keys),
            key_required=key_required,
            key_help=key_help,
            requires=tuple(requires),
            install=install,
            check=check,
            unsupported=unsupported,
            video=video,
            cached=cached,
            preflight=preflight,
            model_names=model_names,
        )
        with _lock:
            existing = _BACKENDS.get(name)
            if existing is not None and _qualname(existing.factory) != _qualname(factory):
                raise ValueError(
                    f"a model backend named {name!r} is already registered ({_qualname(existing.factory)})"
                )
            _BACKENDS[name] = info
        return factory

    return decorate


def _qualname(factory: Callable[..., Any]) -> str:
    return f"{getattr(factory, '__module__', '?')}.{getattr(factory, '__qualname__', repr(factory))}"


def _load_built_in() -> None:
    """Import vqakit's own backend modules once; another thread waits for them, and a look-up
    made while they are being imported (by the importing thread) does not loop."""
    if _state["built_in"]:
        return
    with _lock:
        if _state["built_in"] or _state["loading"]:
            return
        _state["loading"] = True
        try:
            for module in BUILT_IN:
                importlib.import_module(f"vqakit.models.{module}")
            _state["built_in"] = True
        finally:
            _state["loading"] = False


def backends() -> dict[str, BackendInfo]:
    """Every backend known here, in registration order (vqakit's own first)."""
    from vqakit.plugins import load_backends

    _load_built_in()
    load_backends()
    return dict(_BACKENDS)


def find_backend(name: str) -> BackendInfo | None:
    """The backend registered as `name`, None when neither vqakit, a `vqakit.backends` entry
    point nor a benchmark system registers one."""
    found = backends().get(name)
    if found is None:
        from vqakit.plugins import load_plugins

        load_plugins()  # a system may register a backend too
        found = _BACKENDS.get(name)
    return found


def backend_info(name: str) -> BackendInfo:
    """The backend registered as `name`; ValueError listing the known ones when there is none."""
    found = find_backend(name)
    if found is None:
        from vqakit.files import did_you_mean

        known = list(backends())
        raise ValueError(
            f"unknown model backend {name!r}; {did_you_mean(name, known)}known: {', '.join(known)}"
        )
    return found


def key_variables() -> tuple[str, ...]:
    """The key variables of the backends registered so far (nothing is loaded to answer)."""
    return tuple(dict.fromkeys(name for info in list(_BACKENDS.values()) for name in info.keys))


class _VideoInputs(Mapping[str, str]):
    """backend -> what it takes of a video (`clip` or `file`), read from the registry when asked."""

    def _items(self) -> dict[str, str]:
        return {name: info.video for name, info in backends().items() if info.video is not None}

    def __getitem__(self, name: str) -> str:
        return self._items()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items())

    def __len__(self) -> int:
        return len(self._items())


VIDEO_INPUT: Mapping[str, str] = _VideoInputs()
