"""Scoring: reading answers out of replies, judges, per-sample scores, run-level results.

Benchmark systems plug in here with decorators: judges (`register_judge`), groups
(`register_group`), per-sample fields (`register_score_fields`), run-level metrics
(`register_metric`) and the diagnostics `compare` reports (`register_diagnostic`).
"""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "vqakit.schema": "length_bucket length_buckets",
        "_audit": "blind_agreement option_biases",
        "_builtin_judges": "ChoiceExtractor OpenAnswerJudge judge_reply no_yes_no",
        "_clusters": "video_clusters ClusterForest",
        "_compare": "compare_runs",
        "_errors": "error_kinds errors_text",
        "_extract": "Extraction extract_choice",
        "_headline": (
            "headline headline_of headline_short headline_text interval_kind_text interval_text "
            "intervals_note number_text"
        ),
        "_hooks": (
            "default_groups diagnostics group_keys register_diagnostic register_group register_metric "
            "register_score_fields group_names"
        ),
        "_intervals": (
            "CLUSTERED_KINDS SMALL_GROUP accuracy_summary binomial_bootstrap_interval bootstrap_interval "
            "cluster_bootstrap_interval cluster_counts cluster_summary clustered_normal_interval "
            "clustered_standard_error design_effect effective_bootstrap_interval "
            "effective_wilson_interval wilson_interval"
        ),
        "_judge_context": "benchmark_root use_benchmark_root",
        "_judges": "Judge get_judge judge_for_kind judges mean_summary register_judge",
        "_labels": "LETTERS OptionStyle format_options",
        "_metrics": "score_sample summarise",
        "_official": "official_results",
        "_paired": "clustered_mcnemar mcnemar_exact pair_summary paired_bootstrap paired_cluster_bootstrap",
        "_reasoning": (
            "REASONING_SOURCES ReasoningSource model_reasoning reasoning_source use_reasoning_source"
        ),
        "_usage": "usage_totals UsageTally",
        "_verdicts": "parse_yes_no yes_no_reason",
        "_tally": "Outcomes ResultsTally",
    },
)
