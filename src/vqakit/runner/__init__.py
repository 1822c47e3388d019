"""Running methods over benchmarks into resumable run folders (local or Ray engine)."""

from vqakit.runner._config import EvalConfig
from vqakit.runner._rank import kendall_tau, rank_runs
from vqakit.runner._run import PredictionLog, RunConfigError, RunOutcome, benchmark_hash, run_eval
from vqakit.runner._sweep import SWEEPABLE, expand_values, run_sweep

__all__ = [
    "SWEEPABLE",
    "EvalConfig",
    "PredictionLog",
    "RunConfigError",
    "RunOutcome",
    "benchmark_hash",
    "expand_values",
    "kendall_tau",
    "rank_runs",
    "run_eval",
    "run_sweep",
]
