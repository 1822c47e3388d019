"""`vqakit build instructionbench`: open-ended and five-option questions from step-annotated
instructional videos (docs/protocols/instructionbench.md), built with the shared kit of
`vqakit.builders`.

1  import       annotation files (YouCook2, HiREST, Ego4D Goal-Step, Ego-Exo4D keysteps, or the
                table form) read into video infos; importer problems go to
                `build/import_problems.txt`
2  clips        videos without steps, without step times or without a file in the videos folder
                are dropped; long first-person videos are trimmed into clips; each clip's window
                is cut to its video file
3  generation   question-answer pairs from each clip's text, per granularity (coarse, fine);
                pairs that break the wording rules are rejected (one drop each) and rewritten
4-7 filters     blind, hallucination, tricky, unspecific: a question a filter fails is dropped
                with the filter's verdict and reason
8  mcq          four verified distractors per question (redesigned up to 10 times, then given
                up: the question stays open-ended only)
9  letters      gold letters spread evenly over A-E

Modules: `clips` (1-2), `generation` (3), `filtering` (4-7), `options` (8-9), `output` (samples,
clip corpus, card), `stats`, `pipeline` (the order of the stages and the output), `records`,
`context`.

Every model step is journaled (`build/calls.jsonl`) so a rerun reuses it, and every dropped item
is logged with its reason (`build/drops.jsonl`). The output is a benchmark folder (card,
samples, clip corpus, media) plus `build/` holding `stages.json`, `report.md`, `drops.jsonl`,
`judgements.jsonl` (every filter judgement), `mcq_designs.jsonl` (every option design),
`clip_steps.jsonl` (the steps each clip's questions were written from), `stats.json` and
`calls.jsonl`.
"""

from vqakit.builders import InputError
from vqakit.systems.instructionbench.builder.context import GRANULARITIES, InstructionBenchBuildConfig
from vqakit.systems.instructionbench.builder.pipeline import (
    BuildOutcome,
    InstructionBenchBuilder,
    build_instructionbench,
    build_instructionbench_from_specs,
    check_checkers,
)
from vqakit.systems.instructionbench.builder.stats import build_stats, build_stats_lines

__all__ = [
    "GRANULARITIES",
    "BuildOutcome",
    "InputError",
    "InstructionBenchBuildConfig",
    "InstructionBenchBuilder",
    "build_instructionbench",
    "build_instructionbench_from_specs",
    "build_stats",
    "build_stats_lines",
    "check_checkers",
]
