"""Packages whose public names load on first use (PEP 562).

A package's `__init__` re-exports the public names of its private modules. Importing them all at
once made every command pay for everything (`vqakit eval` imported PyAV, Pillow, every model
SDK's glue and every benchmark system to answer from its caches). Instead the `__init__` says
which module holds each name:

    __getattr__, __dir__, __all__ = lazy_exports(__name__, {
        "_frames": "FrameProvider FrameStats",
        "_batch": "Batcher PENDING as BATCH_PENDING",
    })

and a name's module is imported when the name is first asked for (`from vqakit.methods import
FrameProvider`, or `vqakit.methods.FrameProvider`); the value is then kept in the package, so
later look-ups cost nothing. Registries that are filled by importing modules (methods, judges)
import their built-in modules themselves before answering.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]], list[str]]:
    """(`__getattr__`, `__dir__`, `__all__`) for `package`: `exports` maps each of its modules
    (relative, e.g. `_frames`, or a package of a lower layer by its full name, e.g.
    `vqakit.schema`) to the names it gives, separated by spaces; `NAME as ALIAS` gives a name
    under another one."""
    where: dict[str, tuple[str, str]] = {}
    for module, names in exports.items():
        words = names.split()
        index = 0
        while index < len(words):
            name = alias = words[index]
            if index + 2 < len(words) and words[index + 1] == "as":
                alias = words[index + 2]
                index += 2
            if alias in where:
                raise ValueError(f"{package}: {alias!r} is exported twice")
            where[alias] = (module if module.startswith("vqakit.") else f"{package}.{module}", name)
            index += 1

    def __getattr__(name: str) -> Any:
        found = where.get(name)
        if found is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(found[0]), found[1])
        setattr(sys.modules[package], name, value)  # found: later look-ups do not come here
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where})

    return __getattr__, __dir__, sorted(where)


__all__ = ["lazy_exports"]
