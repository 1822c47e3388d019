"""The run folder: what `vqakit eval` writes, and the one reader every other verb uses.

config.yaml        everything needed to rerun (and what a resumed run must match)
manifest.json      package versions, prompt hashes, benchmark hash, what the model was shown
predictions.jsonl  one line per finished sample, appended, flushed and fsynced at once
judgments.jsonl    second passes (judges), one line per sample and judge, appended likewise
scores.jsonl       per-sample scores (rewritten from predictions and judgments)
results.json       run-level metrics
report.html        the same for people
"""

from vqakit.runs._folder import (
    CONFIG,
    FRAMES,
    JUDGMENTS,
    MANIFEST,
    PREDICTIONS,
    REPORT,
    RESULTS,
    SCORES,
    RunFolder,
    RunFolderError,
    strip_path,
)
from vqakit.runs._listing import RunSummary, list_runs
from vqakit.runs._logs import JudgmentLog, PredictionLog, read_predictions

__all__ = [
    "CONFIG",
    "FRAMES",
    "JUDGMENTS",
    "MANIFEST",
    "PREDICTIONS",
    "REPORT",
    "RESULTS",
    "SCORES",
    "JudgmentLog",
    "PredictionLog",
    "RunFolder",
    "RunFolderError",
    "RunSummary",
    "list_runs",
    "read_predictions",
    "strip_path",
]
