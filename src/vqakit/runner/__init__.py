"""Running methods over benchmarks into resumable run folders (local engine)."""

from vqakit.runner._run import EvalConfig, PredictionLog, RunConfigError, RunOutcome, benchmark_hash, run_eval

__all__ = ["EvalConfig", "PredictionLog", "RunConfigError", "RunOutcome", "benchmark_hash", "run_eval"]
