"""How a sample becomes a prediction. A method is one async function, registered by name.

- `direct`: sampled frames + question (+ options) -> model -> extracted answer.
- `blind`: question and options only (Minerva-Ego's QA-only control).
- `random`: a uniformly random option, seeded by the sample id (the chance baseline).
- `hints`: `direct` plus marks drawn around the tracked objects and frames chosen where they
  are (Minerva-Ego's spatio-temporal hints; style from the run's `hints` option).
- `rag`, `rag+localize`, `rag+split`, `oracle-clip`: retrieval over the benchmark's clip and
  passage corpora, then an answer from clip descriptions and passages (EgoFact; see `_rag`).
- `text-similarity`: the option whose MiniLM embedding is closest to the question's; no video,
  no model (an offline text-only baseline).
"""

from vqakit.methods._base import METHODS, MethodContext, get_method, method
from vqakit.methods._baselines import random_choice, text_similarity
from vqakit.methods._direct import blind, direct
from vqakit.methods._hints import hinted_parts, hints
from vqakit.methods._rag import RAG_DEFAULTS, oracle_clip, rag, rag_localize, rag_split, run_rag

__all__ = [
    "METHODS",
    "RAG_DEFAULTS",
    "MethodContext",
    "blind",
    "direct",
    "get_method",
    "hinted_parts",
    "hints",
    "method",
    "oracle_clip",
    "rag",
    "rag_localize",
    "rag_split",
    "random_choice",
    "run_rag",
    "text_similarity",
]
