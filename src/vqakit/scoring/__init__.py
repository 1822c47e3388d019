"""Scoring: reading answers out of replies, per-sample scores, run-level results."""

from vqakit.scoring._extract import LETTERS, Extraction, extract_choice
from vqakit.scoring._metrics import bootstrap_interval, score_sample, summarise

__all__ = ["LETTERS", "Extraction", "bootstrap_interval", "extract_choice", "score_sample", "summarise"]
