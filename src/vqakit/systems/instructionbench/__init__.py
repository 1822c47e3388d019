"""InstructionBench: questions written from the step annotations of instructional videos, four
quality filters, and five-option questions with verified distractors
(docs/protocols/instructionbench.md).

Importing it registers its prompts and the `source` result group
(`protocol`, with the paper's evaluation defaults). `video_info` is the one form the annotation
`importers` read into, `trim` cuts long first-person videos into clips, `generate`, `filters`
and `distractors` are the model steps, and `builder` runs them all (`vqakit build
instructionbench`); `evidence` shows reviewers what the builder used for each sample.
"""

from pathlib import Path

from vqakit.plugins import defer
from vqakit.prompts import register_prompt_folder
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts", answer_prompts=("ib_mcq_eval",))

from vqakit.systems.instructionbench import protocol  # noqa: E402  - the `source` group of every run
from vqakit.systems.instructionbench.protocol import PROTOCOL  # noqa: E402

defer(f"{__name__}.evidence")

register_system(
    System(
        name="instructionbench",
        title="InstructionBench: QA from step-annotated instructional videos, four filters, verified MCQ",
        reference="InstructionBench: An Instructional Video Understanding Benchmark",
        link="https://arxiv.org/abs/2504.05040",
        notes="docs/protocols/instructionbench.md",
        protocol=PROTOCOL,
        commands=("build instructionbench", "steps"),
    )
)

__all__ = ["PROTOCOL", "protocol"]
