"""Append-only logs of a run folder that never lose a finished record.

A later line for a sample supersedes an earlier one; lines are only ever appended, so a sample
that ended in an error and is retried keeps its error line, followed by the new outcome. A
successful line is final: nothing is appended after it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vqakit.files import append_synced, complete_lines
from vqakit.schema import Prediction


class PredictionLog:
    """predictions.jsonl. Opening it cuts off a line a kill left half-written, so the run can go
    on appending. `finished` holds each sample's latest prediction; `done` is what a resumed run
    skips: successful samples, and failed ones too when `retry_errors` is off."""

    def __init__(self, path: Path, *, retry_errors: bool = True) -> None:
        self.path = path
        self.retry_errors = retry_errors
        self.finished: dict[str, Prediction] = {}
        for prediction in complete_lines(path, Prediction.model_validate_json):
            self.finished[prediction.sample_id] = prediction
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def done(self, sample_id: str) -> bool:
        prediction = self.finished.get(sample_id)
        if prediction is None:
            return False
        return prediction.failed_for_good or not self.retry_errors

    def append(self, prediction: Prediction) -> None:
        earlier = self.finished.get(prediction.sample_id)
        if earlier is not None and earlier.failed_for_good:
            return
        append_synced(self._handle, prediction.model_dump_json())
        self.finished[prediction.sample_id] = prediction

    def close(self) -> None:
        self._handle.close()


class JudgmentLog:
    """judgments.jsonl: records `{"sample_id", "kind", ...}` where `kind` names the judge. The
    latest record of a (judge, sample) pair counts; a record with an `error` is graded again
    when `retry_errors` is on."""

    def __init__(self, path: Path, *, retry_errors: bool = True) -> None:
        self.path = path
        self.retry_errors = retry_errors
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        for record in complete_lines(path, json.loads):
            self.records[(record["kind"], record["sample_id"])] = record

    def has(self, kind: str, sample_id: str) -> bool:
        record = self.records.get((kind, sample_id))
        return record is not None and (record.get("error") is None or not self.retry_errors)

    def get(self, kind: str, sample_id: str) -> dict[str, Any] | None:
        return self.records.get((kind, sample_id))

    def append(self, record: dict[str, Any]) -> None:
        key = (record["kind"], record["sample_id"])
        earlier = self.records.get(key)
        if earlier is not None and earlier.get("error") is None:
            return
        with open(self.path, "a", encoding="utf-8") as handle:
            append_synced(handle, json.dumps(record))
        self.records[key] = record

    def by_sample(self) -> dict[str, dict[str, dict[str, Any]]]:
        """{sample id: {kind: record}}"""
        grouped: dict[str, dict[str, dict[str, Any]]] = {}
        for (kind, sample_id), record in self.records.items():
            grouped.setdefault(sample_id, {})[kind] = record
        return grouped
