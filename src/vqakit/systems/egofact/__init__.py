"""EgoFact: multi-hop multimodal RAG over egocentric clips and how-to passages
(docs/protocols/egofact.md).

Importing it registers: the retrieval methods `rag`, `rag+localize`, `rag+best-piece`,
`rag+split` and `oracle-clip` (`rag`); the paper's other Table-3 baselines `graphrag` and
`videorag-jeong` (`baselines`); the retrieval diagnostics, the question-family breakdown and the
sufficiency judge (`diagnostics`); their report sections (`report`); the two-hop option-structure
check of `validate` (`validation`); what reviewers see of a question's events and two-hop pairs
in `vqakit studio` (`evidence`); and its prompts. The builder (`vqakit build egofact`) is in
`builder`.
"""

from pathlib import Path

from vqakit.methods import declare_method
from vqakit.plugins import defer
from vqakit.prompts import register_prompt_folder
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts")

# what every run consults (scoring, report, validation); the methods load when asked for by name
from vqakit.systems.egofact import diagnostics, report, validation  # noqa: E402
from vqakit.systems.egofact.protocol import PROTOCOL  # noqa: E402

METHODS = {
    "rag": "rag",
    "rag+localize": "rag",
    "rag+best-piece": "rag",
    "rag+split": "rag",
    "oracle-clip": "rag",
    "graphrag": "graphrag_method",
    "videorag-jeong": "videorag_jeong",
}
for _name, _module in METHODS.items():
    declare_method(_name, f"{__name__}.{_module}")
defer(f"{__name__}.rag", f"{__name__}.baselines", f"{__name__}.evidence")

register_system(
    System(
        name="egofact",
        title="EgoFact: multi-hop multimodal RAG over egocentric video and how-to passages",
        reference="EgoFact: A Benchmark for Multi-Hop Multi-Modal Retrieval-Augmented Generation",
        link="https://openreview.net/forum?id=6WS1wfLmc6",
        notes="docs/protocols/egofact.md",
        protocol=PROTOCOL,
        methods=tuple(METHODS),
        judges=("sufficiency",),
        commands=("build egofact", "index"),
    )
)

__all__ = ["METHODS", "PROTOCOL", "diagnostics", "report", "validation"]
