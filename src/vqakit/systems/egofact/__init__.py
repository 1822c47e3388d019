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

from vqakit.prompts import register_prompt_folder
from vqakit.systems import System, register_system

register_prompt_folder(Path(__file__).parent / "prompts")

from vqakit.systems.egofact import baselines, diagnostics, evidence, rag, report, validation  # noqa: E402
from vqakit.systems.egofact.protocol import PROTOCOL  # noqa: E402

register_system(
    System(
        name="egofact",
        title="EgoFact: multi-hop multimodal RAG over egocentric video and how-to passages",
        reference="EgoFact: A Benchmark for Multi-Hop Multi-Modal Retrieval-Augmented Generation",
        link="https://openreview.net/forum?id=6WS1wfLmc6",
        notes="docs/protocols/egofact.md",
        protocol=PROTOCOL,
        methods=(
            "rag",
            "rag+localize",
            "rag+best-piece",
            "rag+split",
            "oracle-clip",
            "graphrag",
            "videorag-jeong",
        ),
        judges=("sufficiency",),
        commands=("build egofact", "index"),
    )
)

__all__ = ["PROTOCOL", "baselines", "diagnostics", "evidence", "rag", "report", "validation"]
