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

from vqakit.plugins import defer
from vqakit.prompts import register_prompt_folder
from vqakit.schema import Protocol
from vqakit.systems import System, register_system

PRESETS = ("videomme", "mvbench", "egoschema", "nextqa", "perceptiontest", "longvideobench", "mlvu")

# each preset's prompt is an answer prompt: its benchmarks' protocol names it, `--prompt` picks it
_PROMPTS = Path(__file__).parent / "prompts"
register_prompt_folder(_PROMPTS, answer_prompts=tuple(sorted(path.stem for path in _PROMPTS.glob("*.txt"))))
# the presets register importers (`vqakit import NAME`) and submission formats (`vqakit export`),
# which no run consults: loaded when those registries are asked
defer(*(f"{__name__}.{name}" for name in PRESETS))

register_system(
    System(
        name="presets",
        title="Published video QA benchmarks: Video-MME, MVBench, EgoSchema, NExT-QA, Perception Test, "
        "LongVideoBench, MLVU",
        reference="each benchmark's own paper and release (listed with its layout in the notes)",
        notes="docs/datasets.md",
        protocol=Protocol(),
        commands=tuple(f"import {name}" for name in PRESETS),
    )
)

__all__ = ["PRESETS"]
