"""Finding plug-ins: benchmark systems (vqakit's own `vqakit.systems` package, and packages that
declare a `vqakit.systems` entry point) and model backends (packages that declare a
`vqakit.backends` entry point).

A system registers its methods, judges, metrics, report sections, validation checks and prompt
folders with decorators when it is imported; a backend package registers its backends
(`vqakit.models.register_backend`). Registries call `load_plugins()` (or the backend registry,
`load_backends()`) before answering a look-up, so a look-up made from any layer sees every
plug-in; importing is by name (here), never by a lower layer importing a higher one.

Two tiers, so that a run imports only what it uses. A system's package (its `__init__`)
registers what every run consults (scoring and report hooks, judges, validation checks, prompt
folders) and declares what is found by name (methods: `vqakit.methods.declare_method`); the
modules of the rest (its methods, builders, importers) it names with `defer`. The registries a
run consults call `load_systems()`, which imports the systems' packages; listings and the
registries of other commands call `load_plugins()`, which also imports the deferred modules.

Backends have their own group: a backend is not a benchmark system, and a model spec (parsed in
every worker process) should not import every system to find its backend.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable
from importlib.metadata import entry_points

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "vqakit.systems"
BACKENDS_GROUP = "vqakit.backends"
_BUILT_IN = "vqakit.systems"

_lock = threading.RLock()
_state: dict[str, bool] = {"systems": False, "loaded": False, "backends": False}  # and loading_<name>
failures: dict[str, str] = {}  # entry point name -> why it could not be loaded (systems)
backend_failures: dict[str, str] = {}  # the same for `vqakit.backends` entry points
_deferred: list[str] = []  # modules `defer`red by systems, imported by `load_plugins`


def defer(*modules: str) -> None:
    """Modules (full names) that register the rest of what a system provides (its methods,
    builders, importers, ...): imported by `load_plugins`, not by `load_systems`."""
    _deferred.extend(module for module in modules if module not in _deferred)


def _once(done: str, action: Callable[[], None]) -> None:
    """Run `action` once per process. Another thread waits until it is done; a look-up made by
    the thread running it, while it runs (a registry asked during an import), returns at once."""
    if _state[done]:
        return
    busy = f"loading_{done}"
    with _lock:  # re-entrant: the loading thread gets in, and sees it busy
        if _state[done] or _state.get(busy):
            return
        _state[busy] = True
        try:
            action()
            _state[done] = True
        finally:
            _state[busy] = False


def _load_entry_points(group: str, failed: dict[str, str], what: str) -> None:
    for point in entry_points(group=group):
        if point.value.split(":")[0] == _BUILT_IN or point.value.startswith(_BUILT_IN + "."):
            continue
        try:
            point.load()
        except Exception as error:  # a broken third-party plug-in must not stop vqakit
            failed[point.name] = f"{type(error).__name__}: {error}"
            log.warning("vqakit %s %r could not be loaded: %s", what, point.name, error)


def load_systems() -> None:
    """Import every system's package once per process: what every run consults is registered
    and what is found by name is declared (cheap after the first call)."""

    def load() -> None:
        importlib.import_module(_BUILT_IN)
        _load_entry_points(ENTRY_POINT_GROUP, failures, "system")

    _once("systems", load)


def load_plugins() -> None:
    """Import every system and backend plug-in, with everything they register, once per process
    (cheap after the first call)."""
    load_backends()
    load_systems()
    _once("loaded", lambda: [importlib.import_module(module) for module in list(_deferred)])


def load_backends() -> None:
    """Import every `vqakit.backends` entry point once per process; one that fails to load is
    logged and listed in `backend_failures` (`vqakit models` shows it), never fatal."""
    _once("backends", lambda: _load_entry_points(BACKENDS_GROUP, backend_failures, "model backend"))
