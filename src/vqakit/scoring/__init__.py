"""Scoring: reading answers out of replies, per-sample scores, run-level results."""

from vqakit.scoring._audit import blind_agreement, option_biases
from vqakit.scoring._compare import compare_runs, mcnemar_exact, paired_bootstrap
from vqakit.scoring._extract import LETTERS, Extraction, extract_choice
from vqakit.scoring._judge import extract_with_model, judge_open, parse_verdict
from vqakit.scoring._metrics import DEFAULT_GROUPS, bootstrap_interval, length_bucket, score_sample, summarise
from vqakit.scoring._recall import object_recall, singular
from vqakit.scoring._retrieval import (
    gold_caption,
    judge_sufficiency,
    parse_yes_no,
    retrieval_fields,
    summarise_retrieval,
)
from vqakit.scoring._rubric import CRITERIA, parse_rubric, rubric_judge

__all__ = [
    "CRITERIA",
    "DEFAULT_GROUPS",
    "LETTERS",
    "Extraction",
    "blind_agreement",
    "bootstrap_interval",
    "compare_runs",
    "extract_choice",
    "extract_with_model",
    "gold_caption",
    "judge_open",
    "judge_sufficiency",
    "length_bucket",
    "mcnemar_exact",
    "object_recall",
    "option_biases",
    "paired_bootstrap",
    "parse_rubric",
    "parse_verdict",
    "parse_yes_no",
    "retrieval_fields",
    "rubric_judge",
    "score_sample",
    "singular",
    "summarise",
    "summarise_retrieval",
]
