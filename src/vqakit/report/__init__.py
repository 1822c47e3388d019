"""Reports for people: a self-contained HTML page per run, one per sweep, one per ranking.

Pages are Jinja2 templates (`templates/`, one per page). Benchmark systems add sections, sample
details and the frames a sample card shows through the decorators of `_hooks`, and submission
formats for benchmarks with hidden answers (`register_submission`, `write_submission`).
"""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_hooks": (
            "SampleDetail Section ShownFrames Table percent register_judged_detail register_sample_detail "
            "register_section register_shown_frames"
        ),
        "_official_table": "NoOfficialTable official_rows",
        "_page": "write_report SamplePages",
        "_render": "render_page write_page",
        "_submissions": (
            "Answer Submission SubmissionFormat register_submission run_answers submission_formats "
            "write_submission"
        ),
        "_sweep": "write_ranking_report write_sweep_report",
        "_tables": (
            "FORMATS comparison_note comparison_rows format_rows format_table interval_note result_rows "
            "run_groups TableKeyError"
        ),
        "_escape": "latex_cell markdown_cell",
    },
)
