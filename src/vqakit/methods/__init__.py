"""How a sample becomes a prediction. A method is one async function, registered by name with
the options it owns (`@method`); benchmark systems register theirs the same way.

Frames a method shows are named, not held (`request_frames`, `frames_part`, `frames_strip`;
`Overlay` for what it draws on them): the run's frame provider decodes each once, keeps it in the
frame store, and the response cache keys it by identity.

Generic methods:
- `direct`: sampled frames + question (+ options) -> model -> extracted answer; with
  `--input video`, the video itself where the backend takes video (`_video_input`).
- `blind`: question and options only (a text-only control).
- `random`: a uniformly random option, seeded by the sample id (the chance baseline).
- `text-similarity`: the option whose MiniLM embedding is closest to the question's; no video,
  no model (an offline text-only baseline).
- `human`: a person's answers recorded in `vqakit studio` (the run's answers.jsonl).
"""

from vqakit.methods._baselines import random_choice, text_similarity
from vqakit.methods._direct import Visual, ask_model, blind, build_prompt, direct, frame_request, window_spec
from vqakit.methods._frames import FrameProvider, FrameStats
from vqakit.methods._human import (
    HUMAN,
    HUMAN_ANSWERS,
    NOT_ANSWERED,
    HumanAnswer,
    HumanOptions,
    PersonName,
    human,
    prediction_from_answer,
    read_answers,
)
from vqakit.methods._named import (
    frames_part,
    frames_strip,
    protocol_resize,
    request_frames,
    sendable,
    sent_encoding,
)
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
from vqakit.methods._requests import FrameRequest, Overlay
from vqakit.methods._sent import keep_strip, save_strip, sent_images, sent_text
from vqakit.methods._video_input import VideoOptions, describe_video_input, sent_video, video_parts

__all__ = [
    "HUMAN",
    "HUMAN_ANSWERS",
    "NOT_ANSWERED",
    "FrameProvider",
    "FrameRequest",
    "FrameStats",
    "HumanAnswer",
    "HumanOptions",
    "Method",
    "MethodContext",
    "MethodSetupError",
    "NoOptions",
    "Overlay",
    "PersonName",
    "VideoOptions",
    "Visual",
    "ask_model",
    "blind",
    "build_prompt",
    "describe_video_input",
    "direct",
    "frame_request",
    "frames_part",
    "frames_strip",
    "get_method",
    "human",
    "keep_strip",
    "method",
    "methods",
    "option_names",
    "prediction_from_answer",
    "protocol_resize",
    "random_choice",
    "read_answers",
    "request_frames",
    "save_strip",
    "sendable",
    "sent_encoding",
    "sent_images",
    "sent_text",
    "sent_video",
    "text_similarity",
    "video_parts",
    "window_spec",
]
