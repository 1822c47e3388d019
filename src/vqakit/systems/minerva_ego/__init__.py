"""Minerva-Ego: hand-written 5-option MCQ with grounded reasoning traces (docs/protocols/minerva_ego.md).

Importing it registers: the `hints` method (spatio-temporal hints: marks drawn around tracked or
detected objects, frames chosen where they are; `hints`), the MiRA rubric judge of reasoning
(`rubric`), object recall of the reference trace's objects (`recall`) and its report section
(`report`), and its prompts. `importer` reads the Minerva-Ego / MINERVA release files
(`vqakit import minerva`), and `minerva` registers MINERVA itself as a preset, with its own card
and table (`vqakit import minerva-mcq`); `rank` ranks runs by reasoning under several judges (`vqakit rank`).
"""

from pathlib import Path

from vqakit.methods import declare_method
from vqakit.plugins import defer
from vqakit.prompts import register_prompt_folder
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts")

# what every run consults (scoring, report, the rubric judge); the method and preset load on demand
from vqakit.systems.minerva_ego import recall, report, rubric  # noqa: E402
from vqakit.systems.minerva_ego.protocol import PROTOCOL  # noqa: E402

declare_method("hints", f"{__name__}.hints")
defer(f"{__name__}.hints", f"{__name__}.minerva")  # the method, and the `minerva-mcq` preset

register_system(
    System(
        name="minerva_ego",
        title="Minerva-Ego: MCQ with grounded reasoning traces, rubric scoring, object recall and hints",
        reference="Minerva-Ego: Spatiotemporal Hints for Egocentric Video Understanding",
        link="https://arxiv.org/abs/2605.15342",
        notes="docs/protocols/minerva_ego.md",
        protocol=PROTOCOL,
        methods=("hints",),  # declared above
        judges=("rubric",),
        commands=("import minerva", "import minerva-mcq", "hints", "rank"),
    )
)

__all__ = ["PROTOCOL", "recall", "report", "rubric"]
