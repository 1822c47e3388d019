"""What a run is: the configuration saved as config.yaml."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

RESUMABLE_FIELDS = ("concurrency", "limit", "engine", "ray_address", "group_by")  # may change when resuming


class EvalConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    bench: str
    method: str = "direct"
    model: str | None = None
    frames: str | None = None  # None: the benchmark protocol's
    short_side: int | None = None
    prompt: str | None = None
    concurrency: int = 8
    limit: int | None = None
    seed: int = 0
    hints: str = "circle+classes+temporal"  # style of the hints method (vqakit.video.parse_style)
    detector: str | None = None  # hints without tracks: open-vocabulary detector, e.g. owlv2:<folder>
    engine: str = "local"  # "local" (asyncio in this process) or "ray" (samples as Ray tasks)
    ray_address: str | None = None  # existing Ray cluster; None starts a local instance
    group_by: tuple[str, ...] = ()  # metadata keys to break results down by, beyond the defaults
    judge: str | None = None  # model that grades open-ended answers yes/no
    rubric_judge: str | None = None  # model that grades reasoning against the reference trace (MiRA)
    extractor: str | None = None  # model that reads MCQ replies the rules abstained on
    fallback: str | None = None  # model asked when the main model refuses or replies empty
    # retrieval methods (rag, rag+localize, rag+split, oracle-clip)
    index: str | None = None  # index folder; None: the benchmark's default index folder
    text_embedder: str | None = None  # None: the index's (minilm for a new index)
    image_embedder: str | None = None  # None: the index's (none: clips found by their descriptions)
    top_clips: int = 5
    window_s: float = 5.0  # localization window / split piece length
    shift_s: float = 1.0  # how far a before/after cue moves the window
    caption_frames: int = 15  # frames per retrieved clip (the frame budget)
    approximate: bool = False  # approximate (IVF) search instead of exact
    sufficiency_judge: str | None = None  # model judging whether the gold clip's description has the event
