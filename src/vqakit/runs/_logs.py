"""Append-only logs of a run folder that never lose a finished record.

A later line for a sample supersedes an earlier one; lines are only ever appended, so a sample
that ended in an error and is retried keeps its error line, followed by the new outcome. A
successful line is final: nothing is appended after it.

They are read with the one log reader (`vqakit.files.read_log`): a complete line that cannot be
read refuses the log (`BadLogLines`, naming each line), a last line cut short by a kill is left
out, and removed only when the log is appended to next.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from vqakit.files import LogAppender, json_object, read_log, require, sync_folder
from vqakit.schema import NOT_APPLICABLE, Prediction


def parse_prediction(line: bytes) -> Prediction:
    """One line of predictions.jsonl (ValueError naming the fields that are wrong)."""
    return Prediction.model_validate_json(line)


def parse_judgment(line: bytes) -> dict[str, Any]:
    """One line of judgments.jsonl: a JSON object with the sample's id and the judge's name."""
    return require(json_object(line), {"sample_id": str, "kind": str})


def parse_score_row(line: bytes) -> dict[str, Any]:
    """One line of scores.jsonl: a JSON object with the sample's id."""
    return require(json_object(line), {"sample_id": str})


class PredictionLog:
    """predictions.jsonl, read whole when opened (`BadLogLines` for a line that cannot be
    read); a line a kill left half-written is removed by the first append. `finished` holds
    each sample's latest prediction; `done` is what a resumed run skips: successful samples,
    and failed ones too when `retry_errors` is off.

    `compact=True` keeps only each sample's outcome (final or not, failed or not) instead of
    its prediction, so that a long run's memory does not grow with the samples answered; read
    the predictions back with `read_predictions` when the run is over."""

    def __init__(self, path: Path, *, retry_errors: bool = True, compact: bool = False) -> None:
        self.path = path
        self.retry_errors = retry_errors
        self.compact = compact
        self.finished: dict[str, Prediction] = {}
        self._outcome: dict[str, tuple[bool, bool]] = {}  # sample id -> (failed for good, failed)
        if compact:  # the outcome is all that is kept of each prediction
            contents = read_log(path, _outcome)
            for sample_id, outcome in contents.checked():
                self._outcome[sample_id] = outcome
        else:
            contents = read_log(path, parse_prediction)
            for prediction in contents.checked():
                self._keep(prediction)
        self._appender = LogAppender(contents)
        if not path.exists():  # an opened run has its log, even empty (as the studio expects)
            path.touch()
            sync_folder(path.parent)

    def _keep(self, prediction: Prediction) -> None:
        self._outcome[prediction.sample_id] = (prediction.failed_for_good, prediction.error is not None)
        if not self.compact:
            self.finished[prediction.sample_id] = prediction

    def done(self, sample_id: str) -> bool:
        outcome = self._outcome.get(sample_id)
        if outcome is None:
            return False
        return outcome[0] or not self.retry_errors

    def failed(self, sample_id: str) -> bool:
        """The sample's latest prediction is an error."""
        return self._outcome.get(sample_id, (False, False))[1]

    def skipped(self, sample_id: str) -> bool:
        """The sample's latest prediction says the method does not apply to it (final, not a
        failure to retry)."""
        return self._outcome.get(sample_id) == (True, True)

    def append(self, prediction: Prediction) -> None:
        self.append_many([prediction])

    def append_many(self, predictions: list[Prediction]) -> list[Prediction]:
        """Append predictions with one write and one sync (a group commit); a sample whose outcome
        is already final is skipped. Returns those appended."""
        kept: dict[str, Prediction] = {}
        for prediction in predictions:
            earlier = self._outcome.get(prediction.sample_id)
            if (earlier is None or not earlier[0]) and not (
                prediction.sample_id in kept and kept[prediction.sample_id].failed_for_good
            ):
                kept[prediction.sample_id] = prediction
        if kept:
            self._appender.append([p.model_dump_json() for p in kept.values()])
            for prediction in kept.values():
                self._keep(prediction)
        return list(kept.values())

    def close(self) -> None:
        """Nothing to release (each append opens the file); kept for callers that close."""


def _outcome(line: bytes) -> tuple[str, tuple[bool, bool]]:
    """(sample id, (failed for good, failed)) of a prediction line, checked as a whole
    prediction (a line the full reader refuses is refused here too)."""
    prediction = parse_prediction(line)
    error = prediction.error
    final = error is None or error.type == NOT_APPLICABLE
    return prediction.sample_id, (final, error is not None)


def read_predictions(path: Path) -> dict[str, Prediction]:
    """Each sample's latest prediction in a predictions.jsonl (a cut last line left out;
    `BadLogLines` for a complete line that cannot be read)."""
    found: dict[str, Prediction] = {}
    for prediction in read_log(path, parse_prediction).checked():
        found[prediction.sample_id] = prediction
    return found


class JudgmentLog:
    """judgments.jsonl: records `{"sample_id", "kind", ...}` where `kind` names the judge. The
    latest record of a (judge, sample) pair counts; a record with an `error` is graded again
    when `retry_errors` is on. Read whole when opened (`BadLogLines` for a line that cannot be
    read)."""

    def __init__(self, path: Path, *, retry_errors: bool = True) -> None:
        self.path = path
        self.retry_errors = retry_errors
        self.records: dict[tuple[str, str], dict[str, Any]] = {}
        contents = read_log(path, parse_judgment)
        for record in contents.checked():
            self.records[(record["kind"], record["sample_id"])] = record
        self._appender = LogAppender(contents)

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
        self._appender.append([json.dumps(record)])
        self.records[key] = record

    def by_sample(self) -> dict[str, dict[str, dict[str, Any]]]:
        """{sample id: {kind: record}}"""
        grouped: dict[str, dict[str, dict[str, Any]]] = {}
        for (kind, sample_id), record in self.records.items():
            grouped.setdefault(sample_id, {})[kind] = record
        return grouped
