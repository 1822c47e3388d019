"""Running methods over benchmarks into resumable run folders (local or Ray engine), the judges'
pass, sweeps, audits and comparisons of run folders."""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_audit": "run_audit",
        "_checks": "CheckedRun check_run run_protocol",
        "_compare": "compare_run_folders",
        "_config": "EvalConfig RunSetupError identity make_config upgrade_config",
        "_diff": "diff_lines diff_runs",
        "_evaluate": "EvalPlan default_run_folder evaluate plan_eval run_name",
        "_judge_batch": "JUDGE_BATCH_RESULTS JUDGE_BATCHES judge_run_batched",
        "_lock": "RunLockedError",
        "_ray": "RayModel on_engine",
        "_run": "RunInterrupted RunOutcome RunProgress open_run run_eval RunStopped",
        "_run_files": "benchmark_hash",
        "_saved": "RunConfigError",
        "_score": "checked_runs report_run saved_config score_run",
        "_scores": "write_scores",
        "_second_pass": "judge_run run_judges",
        "_sweep": "SWEEPABLE expand_values run_sweep swept_accuracy",
        "_endpoints": "check_endpoints",
        "_estimate": "RequestLimitError RunEstimate estimate_run estimate_runs",
        "_estimate_text": "estimate_lines",
        "_prices": "PRICES_VARIABLE Price PriceTable read_prices",
    },
)
