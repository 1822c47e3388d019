"""Scoring: reading answers out of replies (and, later, metrics and judges)."""

from vqakit.scoring._extract import LETTERS, Extraction, extract_choice

__all__ = ["LETTERS", "Extraction", "extract_choice"]
