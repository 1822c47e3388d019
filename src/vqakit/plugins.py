"""Finding benchmark systems: vqakit's own (the `vqakit.systems` package) and third-party ones
installed as packages that declare a `vqakit.systems` entry point.

A system registers its methods, judges, metrics, report sections, validation checks and prompt
folders with decorators when it is imported. Registries call `load_plugins()` before answering a
lookup, so a lookup made from any layer sees every system; importing is by name (here), never by
a lower layer importing a higher one.
"""

from __future__ import annotations

import importlib
import logging
import threading
from importlib.metadata import entry_points

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "vqakit.systems"
_BUILT_IN = "vqakit.systems"

_lock = threading.RLock()
_state = {"loaded": False, "loading": False}
failures: dict[str, str] = {}  # entry point name -> why it could not be loaded


def load_plugins() -> None:
    """Import every system once per process (cheap after the first call)."""
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
