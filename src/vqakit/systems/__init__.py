"""Benchmark systems, one package each. Importing this package registers vqakit's own:

- `egofact`: multi-hop multimodal RAG over egocentric clips and how-to passages;
- `minerva_ego`: MCQ with grounded reasoning traces, rubric scoring, object recall and hints.

A system registers its methods, judges, metrics, report sections, validation checks and prompt
folders with the decorators of the layers below, and describes itself with `register_system`.
Third-party systems are packages that declare a `vqakit.systems` entry point.
"""

import importlib

from vqakit.systems._registry import System, register_system, systems

# The registration lines: one per built-in system (a package of this folder).
BUILT_IN = (
    "egofact",
    "minerva_ego",
    "instructionbench",
    "movierecapsqa",
    "presets",
)

for _name in BUILT_IN:
    importlib.import_module(f"{__name__}.{_name}")

__all__ = ["BUILT_IN", "System", "register_system", "systems"]
