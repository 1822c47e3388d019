"""MovieRecapsQA: open-ended QA over movie recap videos and subtitles, recap-to-movie alignment,
and claim-based factuality, relevance and coherence scoring (docs/protocols/movierecapsqa.md).

Importing it registers: the `movierecaps` method, whose options choose the paper's four settings
and two input ablations (`settings`, what each sends in `inputs`); the `claims` judge and the
three judges that label its claims, `factuality`, `relevance` and `coherence` (`claims`,
`judges`, their results in `summary`, their report section and per-sample claims in
`claims_report`); the `imported` method that scores answers written elsewhere (`official`); and
its prompts (prefixed `mr_`). `importer` reads the release's four tables (`vqakit import
movierecapsqa`); `align` aligns a recap to its movie (`vqakit align`); `builder` builds the same
kind of benchmark from recap videos and subtitles (`vqakit build movierecapsqa`); `classify`
labels questions with their category and modality type (`vqakit label movierecapsqa`).
"""

from pathlib import Path

from vqakit.methods import declare_method
from vqakit.plugins import defer
from vqakit.prompts import register_prompt_folder
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts")

# what every run consults (the judges, their summary and report); the methods load when asked for
from vqakit.systems.movierecapsqa import claims, claims_report, judges, summary  # noqa: E402
from vqakit.systems.movierecapsqa.protocol import PROTOCOL  # noqa: E402

declare_method("movierecaps", f"{__name__}.settings")
# scores answers written by another tool (`vqakit import movierecapsqa-answers`), not run by eval
declare_method("imported", f"{__name__}.official", user_runs=False)
defer(f"{__name__}.settings", f"{__name__}.official")

register_system(
    System(
        name="movierecapsqa",
        title="MovieRecapsQA: open-ended QA over recaps and subtitles, claim-based scoring",
        reference="MovieRecapsQA: A Multimodal Open-Ended Video Question-Answering Benchmark",
        link="https://arxiv.org/abs/2601.02536",
        notes="docs/protocols/movierecapsqa.md",
        protocol=PROTOCOL,
        methods=("movierecaps", "imported"),
        judges=("claims", "factuality", "relevance", "coherence"),
        commands=(
            "import movierecapsqa",
            "import movierecapsqa-answers",
            "movierecapsqa-results",
            "align",
            "build movierecapsqa",
            "label movierecapsqa",
        ),
    )
)

__all__ = ["PROTOCOL", "claims", "claims_report", "judges", "summary"]
