"""InstructionBench: questions written from the step annotations of instructional videos, four
quality filters, and five-option questions with verified distractors
(../shared/specs/instructionbench.md).

Importing it registers its prompts and the `format_category` and `format_source` result groups
(`protocol`, with the paper's evaluation defaults). `video_info` is the one form the annotation
`importers` read into, `trim` cuts long first-person videos into clips, `generate`, `filters`
and `distractors` are the model steps, and `builder` runs them all (`vqakit build
instructionbench`); `evidence` shows reviewers what the builder used for each sample.
"""

from pathlib import Path

from vqakit.prompts import register_prompt_folder
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts")

from vqakit.systems.instructionbench import evidence, protocol  # noqa: E402
from vqakit.systems.instructionbench.protocol import PROTOCOL  # noqa: E402

register_system(
    System(
        name="instructionbench",
        title="InstructionBench: QA from step-annotated instructional videos, four filters, verified MCQ",
        reference="papers/instructionbench_supplement.txt",
        protocol=PROTOCOL,
        commands=("build instructionbench", "steps"),
    )
)

__all__ = ["PROTOCOL", "evidence", "protocol"]
