"""Presets for the video benchmarks researchers run first: Video-MME, MVBench, EgoSchema, NExT-QA,
Perception Test, LongVideoBench and MLVU.

Each is a module registering a preset (`vqakit import <name>` comes from it): a mapping
(`mappings/<name>.yaml`, read by the generic table importer, with the benchmark's card and
protocol: frames, prompt, breakdowns), its prompt (`prompts/<name>_mcq.txt`: the official
wording where it is a fixed public template, our own otherwise), and the little code its
release's shape needs (MVBench's task folders and frame folders, EgoSchema's subset answers,
NExT-QA's video map and type groups, Perception Test's nested JSON, Video-MME's subtitle markup,
LongVideoBench's JSON subtitles, MLVU's task files). Benchmarks with hidden answers register
their submission format (`vqakit export RUN --format <name>`).
"""

from pathlib import Path

from vqakit.prompts import register_prompt_folder
from vqakit.schema import Protocol
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts")

from vqakit.systems.presets import (  # noqa: E402
    egoschema,
    longvideobench,
    mlvu,
    mvbench,
    nextqa,
    perceptiontest,
    videomme,
)

register_system(
    System(
        name="presets",
        title="Published video QA benchmarks: Video-MME, MVBench, EgoSchema, NExT-QA, Perception Test, "
        "LongVideoBench, MLVU",
        reference="each benchmark's own paper and release (listed with its layout in the notes)",
        notes="docs/datasets.md",
        protocol=Protocol(),
        commands=tuple(
            f"import {name}"
            for name in (
                "videomme",
                "mvbench",
                "egoschema",
                "nextqa",
                "perceptiontest",
                "longvideobench",
                "mlvu",
            )
        ),
    )
)

__all__ = ["egoschema", "longvideobench", "mlvu", "mvbench", "nextqa", "perceptiontest", "videomme"]
