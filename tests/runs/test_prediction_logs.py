"""The prediction log kept compact while a run goes: the same outcomes as the full log, read
without building each prediction, and the predictions read back whole afterwards."""

from __future__ import annotations

from vqakit.runs import PredictionLog, read_predictions
from vqakit.schema import Prediction


def test_compact_log_knows_what_the_full_log_knows(tmp_path):
    path = tmp_path / "predictions.jsonl"
    log = PredictionLog(path)
    log.append_many(
        [
            Prediction(sample_id="ok", method="direct", reply="A", choice=0),
            Prediction.failed("broken", "direct", "server", "500"),
            Prediction.not_applicable("open", "random", "MCQ only"),
            Prediction.failed("retried", "direct", "timeout", "slow"),
        ]
    )
    log.append(Prediction(sample_id="retried", method="direct", reply="B", choice=1))
    log.append(Prediction(sample_id="ok", method="direct", reply="changed", choice=1))  # final: kept
    log.close()
    with path.open("ab") as handle:
        handle.write(b'{"sample_id": "cut')  # a kill mid-line
    for retry in (True, False):
        full = PredictionLog(path, retry_errors=retry)
        compact = PredictionLog(path, retry_errors=retry, compact=True)
        for sample in ("ok", "broken", "open", "retried", "never"):
            assert compact.done(sample) == full.done(sample), (sample, retry)
            assert compact.failed(sample) == full.failed(sample), (sample, retry)
        assert compact.finished == {} and len(full.finished) == 4
        full.close()
        compact.close()
    found = read_predictions(path)
    assert (
        found["ok"].reply == "A" and found["retried"].choice == 1 and found["broken"].error.type == "server"
    )
