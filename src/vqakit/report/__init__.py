"""Reports for people: a self-contained HTML page per run, and one per sweep."""

from vqakit.report._html import write_report
from vqakit.report._sweep import write_ranking_report, write_sweep_report

__all__ = ["write_ranking_report", "write_report", "write_sweep_report"]
