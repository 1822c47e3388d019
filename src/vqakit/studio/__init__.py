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

from vqakit.studio._agreement import Agreement, PersonProgress, ReviewSummary, review_progress, review_summary
from vqakit.studio._answers import ParticipantRun
from vqakit.studio._app import create_app
from vqakit.studio._apply import POLICIES, ApplyOutcome, apply_review, stale_line
from vqakit.studio._jsonlog import RequestLog
from vqakit.studio._people import Person, check_person
from vqakit.studio._review import DROP_REASONS, EDITABLE, Decision, ReviewStore, review_folder
from vqakit.studio._serve import Background, serve, serve_in_background
from vqakit.studio._studio import Studio, StudioSettings
from vqakit.studio._workspace import StudioError

__all__ = [
    "DROP_REASONS",
    "EDITABLE",
    "POLICIES",
    "Agreement",
    "ApplyOutcome",
    "Background",
    "Decision",
    "ParticipantRun",
    "Person",
    "PersonProgress",
    "RequestLog",
    "ReviewStore",
    "ReviewSummary",
    "Studio",
    "StudioError",
    "StudioSettings",
    "apply_review",
    "check_person",
    "create_app",
    "review_folder",
    "review_progress",
    "review_summary",
    "serve",
    "serve_in_background",
    "stale_line",
]
