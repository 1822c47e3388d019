"""vqakit studio: one local web app where people review, annotate and answer benchmarks.

- review: a queue of samples filterable by the builder's drops, audit flags, categories and
  "not yet reviewed by me"; each sample with its player, the frames the protocol sends, the
  gold, the evidence the builder used, the trace (clickable times) and the object tracks drawn
  over the video; keep / drop / edit decisions appended to `review/<person>.jsonl`;
  `review_summary` (progress and Cohen's / Fleiss' kappa) and `apply_review` (a new version);
- annotate: questions, options, traces and object tracks written over a folder of videos,
  which becomes a benchmark folder (`annotate/changes.jsonl` -> samples.jsonl);
- answer: blind, timed human baselines, one run folder per participant (method `human`),
  scored by the same scorers and judges as a model's run.

Everything is also a JSON endpoint (docs/studio.md). The app is Starlette (`create_app`),
served by uvicorn (`serve`); its pages are Jinja2 templates with htmx vendored as a file.
"""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_agreement": "Agreement PersonProgress ReviewSummary review_progress review_summary",
        "_answers": "ParticipantRun",
        "_app": "create_app",
        "_apply": "apply_review",
        "_decide": "POLICIES ApplyOutcome",
        "_changes": "stale_line",
        "_jsonlog": "RequestLog",
        "_people": "Person check_person",
        "_review": "DROP_REASONS EDITABLE Decision ReviewStore review_folder",
        "_serve": "Background serve serve_in_background",
        "_studio": "Studio StudioSettings",
        "_workspace": "StudioError",
    },
)
