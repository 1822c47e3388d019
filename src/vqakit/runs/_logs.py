"""Append-only logs of a run folder that never lose or duplicate a finished record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vqakit.files import append_synced, complete_lines
from vqakit.schema import Prediction


class PredictionLog:
    """predictions.jsonl: one line per finished sample. Opening it cuts off a line a kill left
    half-written, so the run can go on appending."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.finished: dict[str, Prediction] = {}
        for prediction in complete_lines(path, Prediction.model_validate_json):
            self.finished.setdefault(prediction.sample_id, prediction)
        self._handle = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def append(self, prediction: Prediction) -> None:
        if prediction.sample_id in self.finished:
            return
        append_synced(self._handle, prediction.model_dump_json())
        self.finished[prediction.sample_id] = prediction

    def close(self) -> None:
        self._handle.close()


class JudgmentLog:
    """judgments.jsonl: one record per (judge, sample), each `{"sample_id", "kind", ...}` where
    `kind` names the judge; the first record of a pair counts."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        for record in complete_lines(path, json.loads):
            self.records.setdefault((record["kind"], record["sample_id"]), record)

    def has(self, kind: str, sample_id: str) -> bool:
        return (kind, sample_id) in self.records

    def get(self, kind: str, sample_id: str) -> dict[str, Any] | None:
        return self.records.get((kind, sample_id))

    def append(self, record: dict[str, Any]) -> None:
        key = (record["kind"], record["sample_id"])
        if key in self.records:
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
