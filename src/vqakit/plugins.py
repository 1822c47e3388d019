"""Finding plug-ins: benchmark systems (vqakit's own `vqakit.systems` package, and packages that
declare a `vqakit.systems` entry point) and model backends (packages that declare a
`vqakit.backends` entry point).

A system registers its methods, judges, metrics, report sections, validation checks and prompt
folders with decorators when it is imported; a backend package registers its backends
(`vqakit.models.register_backend`). Registries call `load_plugins()` (or the backend registry,
`load_backends()`) before answering a look-up, so a look-up made from any layer sees every
plug-in; importing is by name (here), never by a lower layer importing a higher one.

Backends have their own group: a backend is not a benchmark system, and a model spec (parsed in
every worker process) should not import every system to find its backend.
"""

from __future__ import annotations

import importlib
import logging
import threading
from importlib.metadata import entry_points

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "vqakit.systems"
BACKENDS_GROUP = "vqakit.backends"
_BUILT_IN = "vqakit.systems"

_lock = threading.RLock()
_state = {"loaded": False, "loading": False, "backends": False, "loading_backends": False}
failures: dict[str, str] = {}  # entry point name -> why it could not be loaded (systems)
backend_failures: dict[str, str] = {}  # the same for `vqakit.backends` entry points


def load_plugins() -> None:
    """Import every system and backend plug-in once per process (cheap after the first call)."""
    load_backends()
    if _state["loaded"] or _state["loading"]:
        return
    with _lock:
        if _state["loaded"] or _state["loading"]:
            return
        _state["loading"] = True
        try:
            importlib.import_module(_BUILT_IN)
            for point in entry_points(group=ENTRY_POINT_GROUP):
                if point.value.split(":")[0] == _BUILT_IN or point.value.startswith(_BUILT_IN + "."):
                    continue
                try:
                    point.load()
                except Exception as error:  # a broken third-party system must not stop vqakit
                    failures[point.name] = f"{type(error).__name__}: {error}"
                    log.warning("vqakit system %r could not be loaded: %s", point.name, error)
            _state["loaded"] = True
        finally:
            _state["loading"] = False


def load_backends() -> None:
    """Import every `vqakit.backends` entry point once per process; one that fails to load is
    logged and listed in `backend_failures` (`vqakit models` shows it), never fatal."""
    if _state["backends"]:
        return
    with _lock:  # another thread waits; a look-up made while loading (this thread) does not loop
        if _state["backends"] or _state["loading_backends"]:
            return
        _state["loading_backends"] = True
        try:
            for point in entry_points(group=BACKENDS_GROUP):
                try:
                    point.load()
                except Exception as error:  # a broken third-party backend must not stop vqakit
                    backend_failures[point.name] = f"{type(error).__name__}: {error}"
                    log.warning("vqakit model backend %r could not be loaded: %s", point.name, error)
            _state["backends"] = True
        finally:
            _state["loading_backends"] = False
