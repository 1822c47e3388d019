"""Scoring: reading answers out of replies, judges, per-sample scores, run-level results.

Benchmark systems plug in here with decorators: judges (`register_judge`), groups
(`register_group`), per-sample fields (`register_score_fields`), run-level metrics
(`register_metric`) and the diagnostics `compare` reports (`register_diagnostic`).
"""

from vqakit.schema import length_bucket, length_buckets
from vqakit.scoring._audit import blind_agreement, option_biases
from vqakit.scoring._builtin_judges import ChoiceExtractor, OpenAnswerJudge, judge_reply, no_yes_no
from vqakit.scoring._clusters import video_clusters
from vqakit.scoring._compare import compare_runs
from vqakit.scoring._errors import error_kinds, errors_text
from vqakit.scoring._extract import Extraction, extract_choice
from vqakit.scoring._headline import (
    headline,
    headline_of,
    headline_short,
    headline_text,
    interval_kind_text,
    interval_text,
    intervals_note,
    number_text,
)
from vqakit.scoring._hooks import (
    default_groups,
    diagnostics,
    group_keys,
    group_names,
    register_diagnostic,
    register_group,
    register_metric,
    register_score_fields,
)
from vqakit.scoring._intervals import (
    CLUSTERED_KINDS,
    SMALL_GROUP,
    accuracy_summary,
    binomial_bootstrap_interval,
    bootstrap_interval,
    cluster_bootstrap_interval,
    cluster_counts,
    cluster_summary,
    clustered_normal_interval,
    clustered_standard_error,
    design_effect,
    effective_bootstrap_interval,
    effective_wilson_interval,
    wilson_interval,
)
from vqakit.scoring._judge_context import benchmark_root, use_benchmark_root
from vqakit.scoring._judges import Judge, get_judge, judge_for_kind, judges, mean_summary, register_judge
from vqakit.scoring._labels import LETTERS, OptionStyle, format_options
from vqakit.scoring._metrics import score_sample, summarise
from vqakit.scoring._official import official_results
from vqakit.scoring._paired import (
    clustered_mcnemar,
    mcnemar_exact,
    pair_summary,
    paired_bootstrap,
    paired_cluster_bootstrap,
)
from vqakit.scoring._reasoning import (
    REASONING_SOURCES,
    ReasoningSource,
    model_reasoning,
    reasoning_source,
    use_reasoning_source,
)
from vqakit.scoring._usage import usage_totals
from vqakit.scoring._verdicts import parse_yes_no, yes_no_reason

__all__ = [
    "CLUSTERED_KINDS",
    "LETTERS",
    "REASONING_SOURCES",
    "SMALL_GROUP",
    "ChoiceExtractor",
    "Extraction",
    "Judge",
    "OpenAnswerJudge",
    "OptionStyle",
    "ReasoningSource",
    "accuracy_summary",
    "benchmark_root",
    "binomial_bootstrap_interval",
    "blind_agreement",
    "bootstrap_interval",
    "cluster_bootstrap_interval",
    "cluster_counts",
    "cluster_summary",
    "clustered_mcnemar",
    "clustered_normal_interval",
    "clustered_standard_error",
    "compare_runs",
    "default_groups",
    "design_effect",
    "diagnostics",
    "effective_bootstrap_interval",
    "effective_wilson_interval",
    "error_kinds",
    "errors_text",
    "extract_choice",
    "format_options",
    "get_judge",
    "group_keys",
    "group_names",
    "headline",
    "headline_of",
    "headline_short",
    "headline_text",
    "interval_kind_text",
    "interval_text",
    "intervals_note",
    "judge_for_kind",
    "judge_reply",
    "judges",
    "length_bucket",
    "length_buckets",
    "mcnemar_exact",
    "mean_summary",
    "model_reasoning",
    "no_yes_no",
    "number_text",
    "official_results",
    "option_biases",
    "pair_summary",
    "paired_bootstrap",
    "paired_cluster_bootstrap",
    "parse_yes_no",
    "reasoning_source",
    "register_diagnostic",
    "register_group",
    "register_judge",
    "register_metric",
    "register_score_fields",
    "score_sample",
    "summarise",
    "usage_totals",
    "use_benchmark_root",
    "use_reasoning_source",
    "video_clusters",
    "wilson_interval",
    "yes_no_reason",
]
