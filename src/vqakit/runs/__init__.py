"""The run folder: what `vqakit eval` writes, and the one reader every other verb uses.

config.yaml        everything needed to rerun (and what a resumed run must match)
manifest.json      package versions, prompt hashes, benchmark hash, what the model was shown
predictions.jsonl  one line per finished sample, appended, flushed and fsynced at once
judgments.jsonl    second passes (judges), one line per sample and judge, appended likewise
judge_batches.jsonl, judge_batch_results.jsonl   the judges' provider batches and their replies
*.set-aside.jsonl  lines of a log that could not be read, moved there on request
                   (`--set-aside-bad-lines`), counted in results.json `set_aside`
scores.jsonl       per-sample scores (rewritten from predictions and judgments)
results.json       run-level metrics
report.html        the same for people
"""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "_damage": (
            "check_run_logs check_run_out checked_run_logs is_run_folder raise_bad_logs register_run_log "
            "run_log_problems run_logs set_aside_run_logs"
        ),
        "_folder": (
            "CONFIG FRAMES JUDGE_BATCH_RESULTS JUDGE_BATCHES JUDGMENTS MANIFEST PREDICTIONS REPORT RESULTS "
            "SCORES RunFolder RunFolderError strip_path"
        ),
        "_listing": "RunSummary list_runs",
        "_logs": "JudgmentLog PredictionLog parse_judgment parse_prediction parse_score_row read_predictions",
        "_index": "JsonlRows JudgmentIndex PredictionIndex RecordIndex paired with_records",
    },
)
