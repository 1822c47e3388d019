"""Reports for people: a self-contained HTML page per run, one per sweep, one per ranking.

Pages are Jinja2 templates (`templates/`, one per page). Benchmark systems add sections, sample
details and the frames a sample card shows through the decorators of `_hooks`, and submission
formats for benchmarks with hidden answers (`register_submission`, `write_submission`).
"""

from vqakit.report._escape import latex_cell, markdown_cell
from vqakit.report._hooks import (
    SampleDetail,
    Section,
    ShownFrames,
    Table,
    percent,
    register_judged_detail,
    register_sample_detail,
    register_section,
    register_shown_frames,
)
from vqakit.report._official_table import NoOfficialTable, official_rows
from vqakit.report._page import write_report
from vqakit.report._render import render_page, write_page
from vqakit.report._submissions import (
    Answer,
    Submission,
    SubmissionFormat,
    register_submission,
    run_answers,
    submission_formats,
    write_submission,
)
from vqakit.report._sweep import write_ranking_report, write_sweep_report
from vqakit.report._tables import (
    FORMATS,
    TableKeyError,
    comparison_note,
    comparison_rows,
    format_rows,
    format_table,
    interval_note,
    result_rows,
)

__all__ = [
    "FORMATS",
    "Answer",
    "NoOfficialTable",
    "SampleDetail",
    "Section",
    "ShownFrames",
    "Submission",
    "SubmissionFormat",
    "Table",
    "TableKeyError",
    "comparison_note",
    "comparison_rows",
    "format_rows",
    "format_table",
    "interval_note",
    "latex_cell",
    "markdown_cell",
    "official_rows",
    "percent",
    "register_judged_detail",
    "register_sample_detail",
    "register_section",
    "register_shown_frames",
    "register_submission",
    "render_page",
    "result_rows",
    "run_answers",
    "submission_formats",
    "write_page",
    "write_ranking_report",
    "write_report",
    "write_submission",
    "write_sweep_report",
]
