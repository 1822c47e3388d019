"""Reports for people: a self-contained HTML page per run."""

from vqakit.report._html import write_report

__all__ = ["write_report"]
