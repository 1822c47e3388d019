"""How a sample becomes a prediction. A method is one async function, registered by name.

- `direct`: sampled frames + question (+ options) -> model -> extracted answer.
- `blind`: question and options only (Minerva-Ego's QA-only control).
- `random`: a uniformly random option, seeded by the sample id (the chance baseline).
- `text-similarity`: the option whose MiniLM embedding is closest to the question's; no video,
  no model (an offline text-only baseline).
"""

from vqakit.methods._base import METHODS, MethodContext, get_method, method
from vqakit.methods._baselines import random_choice, text_similarity
from vqakit.methods._direct import blind, direct

__all__ = [
    "METHODS",
    "MethodContext",
    "blind",
    "direct",
    "get_method",
    "method",
    "random_choice",
    "text_similarity",
]
