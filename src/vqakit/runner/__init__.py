"""Running methods over benchmarks into resumable run folders (local or Ray engine), the judges'
pass, sweeps, audits and comparisons of run folders."""

from vqakit.runner._audit import run_audit
from vqakit.runner._checks import CheckedRun, check_run, run_protocol
from vqakit.runner._compare import compare_run_folders
from vqakit.runner._config import EvalConfig, RunSetupError, identity, make_config, upgrade_config
from vqakit.runner._diff import diff_lines, diff_runs
from vqakit.runner._endpoints import check_endpoints
from vqakit.runner._evaluate import EvalPlan, default_run_folder, evaluate, plan_eval, run_name
from vqakit.runner._judge_batch import JUDGE_BATCH_RESULTS, JUDGE_BATCHES, judge_run_batched
from vqakit.runner._lock import RunLockedError
from vqakit.runner._ray import RayModel, on_engine
from vqakit.runner._run import (
    RunInterrupted,
    RunOutcome,
    RunProgress,
    RunStopped,
    benchmark_hash,
    open_run,
    run_eval,
)
from vqakit.runner._saved import RunConfigError
from vqakit.runner._score import checked_runs, report_run, saved_config, score_run
from vqakit.runner._scores import write_scores
from vqakit.runner._second_pass import judge_run, run_judges
from vqakit.runner._sweep import SWEEPABLE, expand_values, run_sweep, swept_accuracy

__all__ = [
    "JUDGE_BATCHES",
    "JUDGE_BATCH_RESULTS",
    "SWEEPABLE",
    "CheckedRun",
    "EvalConfig",
    "EvalPlan",
    "RayModel",
    "RunConfigError",
    "RunInterrupted",
    "RunLockedError",
    "RunOutcome",
    "RunProgress",
    "RunSetupError",
    "RunStopped",
    "benchmark_hash",
    "check_endpoints",
    "check_run",
    "checked_runs",
    "compare_run_folders",
    "default_run_folder",
    "diff_lines",
    "diff_runs",
    "evaluate",
    "expand_values",
    "identity",
    "judge_run",
    "judge_run_batched",
    "make_config",
    "on_engine",
    "open_run",
    "plan_eval",
    "report_run",
    "run_audit",
    "run_eval",
    "run_judges",
    "run_name",
    "run_protocol",
    "run_sweep",
    "saved_config",
    "score_run",
    "swept_accuracy",
    "upgrade_config",
    "write_scores",
]
