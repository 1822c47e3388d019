"""How a sample becomes a prediction. A method is one async function, registered by name with
the options it owns (`@method`); benchmark systems register theirs the same way.

Generic methods:
- `direct`: sampled frames + question (+ options) -> model -> extracted answer.
- `blind`: question and options only (a text-only control).
- `random`: a uniformly random option, seeded by the sample id (the chance baseline).
- `text-similarity`: the option whose MiniLM embedding is closest to the question's; no video,
  no model (an offline text-only baseline).
"""

from vqakit.methods._baselines import random_choice, text_similarity
from vqakit.methods._direct import Visual, ask_model, blind, build_prompt, direct, frame_request, window_spec
from vqakit.methods._frames import FrameProvider, FrameRequest, FrameStats
from vqakit.methods._registry import (
    Method,
    MethodContext,
    MethodSetupError,
    NoOptions,
    get_method,
    method,
    methods,
    option_names,
)
from vqakit.methods._sent import keep_strip, save_strip, sent_images, sent_text

__all__ = [
    "FrameProvider",
    "FrameRequest",
    "FrameStats",
    "Method",
    "MethodContext",
    "MethodSetupError",
    "NoOptions",
    "Visual",
    "ask_model",
    "blind",
    "build_prompt",
    "direct",
    "frame_request",
    "get_method",
    "keep_strip",
    "method",
    "methods",
    "option_names",
    "random_choice",
    "save_strip",
    "sent_images",
    "sent_text",
    "text_similarity",
    "window_spec",
]
