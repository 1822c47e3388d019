"""Which benchmark systems are installed, for listings (`vqakit systems`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from vqakit.plugins import load_systems
from vqakit.schema import Protocol


@dataclass(frozen=True)
class System:
    name: str
    title: str
    reference: str  # the title of the paper the system implements
    link: str = ""  # where to read it (a public URL)
    notes: str = ""  # the protocol facts vqakit relies on, in the repository (docs/protocols/<name>.md)
    protocol: Protocol = field(default_factory=Protocol)  # defaults of the benchmarks it makes
    methods: tuple[str, ...] = ()
    judges: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()  # its verbs, e.g. "build egofact"


_SYSTEMS: dict[str, System] = {}


def register_system(system: System) -> System:
    _SYSTEMS[system.name] = system
    return system


def systems() -> dict[str, System]:
    load_systems()
    return dict(_SYSTEMS)
