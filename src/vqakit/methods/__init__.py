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

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_baselines": "random_choice text_similarity",
        "_direct": "Visual ask_model blind build_prompt direct frame_request window_spec",
        "_frame_jobs": "warm_decoder",
        "_frames": "PROCESS_FRAMES FrameProvider FrameStats",
        "_human": (
            "HUMAN HUMAN_ANSWERS NOT_ANSWERED HumanAnswer HumanOptions PersonName human "
            "prediction_from_answer read_answers"
        ),
        "_named": "frames_part frames_strip protocol_resize request_frames sendable sent_encoding",
        "_registry": (
            "DeclaredMethod Method MethodContext MethodSetupError NoOptions declare_method get_method method "
            "methods option_names user_methods"
            " PlannedCall"
        ),
        "_requests": "FrameRequest Overlay",
        "_sent": "keep_strip save_strip sent_images sent_text",
        "_video_input": "VideoOptions describe_video_input sent_video video_parts",
    },
)
