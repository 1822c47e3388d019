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
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vqakit.files import (
    LogAppender,
    LogContents,
    LogReader,
    collector_paused,
    json_object,
    read_log,
    require,
    sync_folder,
)
from vqakit.schema import Prediction, Sample, sample_digest

if TYPE_CHECKING:
    import numpy as np

    from vqakit.schema import SampleKeys


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
    the predictions back with `read_predictions` when the run is over. With `keys` (the run's
    samples, `schema.sample_keys`) the log is read as a stream and the outcomes are one byte a
    sample, by position (`outcomes`); lines of samples outside them are passed over: a million
    samples take a megabyte. Its lines are read as predictions its caller has checked (see
    `_digested_outcome`)."""

    def __init__(
        self,
        path: Path,
        *,
        retry_errors: bool = True,
        compact: bool = False,
        keys: SampleKeys | None = None,
        create: bool = True,
    ) -> None:
        self.path = path
        self.retry_errors = retry_errors
        self.compact = compact or keys is not None
        self.keys = keys
        self.finished: dict[str, Prediction] = {}
        self._outcome: dict[str, tuple[bool, bool]] = {}  # sample id -> (failed for good, failed)
        self.outcomes: np.ndarray | None = None  # with `keys`: the outcome bits by position
        if keys is not None:
            contents = self._read_outcomes(keys)
        elif compact:  # the outcome is all that is kept of each prediction
            contents = read_log(path, _outcome)
            for sample_id, outcome in contents.checked():
                self._outcome[sample_id] = outcome
        else:
            contents = read_log(path, parse_prediction)
            for prediction in contents.checked():
                self._keep(prediction)
        self._appender = LogAppender(contents)
        if create:
            self.create()

    def create(self) -> None:
        """Make the log file, empty, if it is not there: an opened run has its log (as the
        studio expects). `create=False` leaves that to the caller, for a log read and checked
        before anything of its run is written."""
        if not self.path.exists():
            self.path.touch()
            sync_folder(self.path.parent)

    def _read_outcomes(self, keys: SampleKeys) -> LogContents[Any]:
        """Each line's outcome at its sample's position (the latest line wins), in one pass."""
        import numpy as np  # only here: a run of a benchmark held in memory starts without NumPy

        self.outcomes = np.zeros(len(self.keys), dtype=np.uint8)
        reader = LogReader(self.path, _digested_outcome)
        digests, flags = bytearray(), bytearray()
        with collector_paused():  # one pause for the whole log, not one per block
            for _, _, (digest, flag) in reader:
                digests += digest
                flags.append(flag)
        reader.checked()
        found = keys.positions(np.frombuffer(digests, dtype="S16"))
        latest = np.unique(found[::-1], return_index=True)[1]  # each position's last line
        at = len(found) - 1 - latest
        at = at[found[at] >= 0]
        self.outcomes[found[at]] = np.frombuffer(flags, dtype=np.uint8)[at]
        return reader.contents()

    def outcome(self, sample_id: str) -> tuple[bool, bool] | None:
        """(failed for good, failed) of the sample's latest line; None when it has none."""
        return self._outcome_at(sample_id, self._positions([sample_id])[0])

    def _positions(self, sample_ids: list[str]) -> list[int]:
        """With `keys`: each sample's position (-1 for one not of the run), in one look-up for
        the lot; without, -1 each (outcomes are kept by id)."""
        if self.keys is None:
            return [-1] * len(sample_ids)
        from vqakit.schema import digests_of

        return self.keys.positions(digests_of(sample_ids)).tolist()

    def _outcome_at(self, sample_id: str, position: int) -> tuple[bool, bool] | None:
        if self.keys is None:
            return self._outcome.get(sample_id)
        flag = 0 if position < 0 else int(self.outcomes[position])
        return None if not flag else (bool(flag & FINAL), bool(flag & FAILED))

    def to_resume(self, samples: Sequence[Sample]) -> tuple[Sequence[Sample], int, int, int]:
        """(the samples a resumed run still runs, how many it skips, and of those how many the
        method does not apply to and how many failed for good): by position with `keys` (the
        run's samples), else sample by sample."""
        if self.keys is not None:
            import numpy as np

            from vqakit.schema import select_samples

            done = self.done_mask()
            skipped = int(np.count_nonzero(done & self.skipped_mask()))
            errors = int(np.count_nonzero(done & self.failed_mask())) - skipped
            return select_samples(samples, ~done), int(np.count_nonzero(done)), skipped, errors
        done = [self.done(sample.id) for sample in samples]
        skipped = sum(
            1 for sample, kept in zip(samples, done, strict=True) if kept and self.skipped(sample.id)
        )
        failed = sum(1 for sample, kept in zip(samples, done, strict=True) if kept and self.failed(sample.id))
        todo = [sample for sample, kept in zip(samples, done, strict=True) if not kept]
        return todo, sum(done), skipped, failed - skipped

    def done_count(self, samples: Sequence[Sample]) -> int:
        """How many of `samples` a resumed run would skip."""
        return self.to_resume(samples)[1]

    def done_mask(self) -> np.ndarray:
        """With `keys`: which of the run's samples a resumed run skips, by position."""
        final = (self.outcomes & FINAL) != 0
        return final if self.retry_errors else self.outcomes != 0

    def failed_mask(self) -> np.ndarray:
        """With `keys`: the samples whose latest prediction is an error."""
        return (self.outcomes & FAILED) != 0

    def skipped_mask(self) -> np.ndarray:
        """With `keys`: the samples the method does not apply to (final errors)."""
        return (self.outcomes & (FINAL | FAILED)) == (FINAL | FAILED)

    def _keep(self, prediction: Prediction, position: int = -1) -> None:
        """Keep what is kept of `prediction`: with `keys`, its outcome at `position` (the
        sample's, -1 for one not of the run)."""
        outcome = (prediction.failed_for_good, prediction.error is not None)
        if self.keys is not None:
            if position >= 0:
                self.outcomes[position] = _flags(outcome)
            return
        self._outcome[prediction.sample_id] = outcome
        if not self.compact:
            self.finished[prediction.sample_id] = prediction

    def done(self, sample_id: str) -> bool:
        outcome = self.outcome(sample_id)
        if outcome is None:
            return False
        return outcome[0] or not self.retry_errors

    def failed(self, sample_id: str) -> bool:
        """The sample's latest prediction is an error."""
        return (self.outcome(sample_id) or (False, False))[1]

    def skipped(self, sample_id: str) -> bool:
        """The sample's latest prediction says the method does not apply to it (final, not a
        failure to retry)."""
        return self.outcome(sample_id) == (True, True)

    def append(self, prediction: Prediction) -> None:
        self.append_many([prediction])

    def append_many(self, predictions: list[Prediction]) -> list[Prediction]:
        """Append predictions with one write and one sync (a group commit); a sample whose outcome
        is already final is skipped. Returns those appended. The samples' positions are
        looked up once for the batch (a run's writer keeps up with its workers)."""
        kept: dict[str, tuple[Prediction, int]] = {}
        positions = self._positions([prediction.sample_id for prediction in predictions])
        for prediction, position in zip(predictions, positions, strict=True):
            earlier = self._outcome_at(prediction.sample_id, position)
            if (earlier is None or not earlier[0]) and not (
                prediction.sample_id in kept and kept[prediction.sample_id][0].failed_for_good
            ):
                kept[prediction.sample_id] = (prediction, position)
        if kept:
            self._appender.append([prediction.model_dump_json() for prediction, _ in kept.values()])
            for prediction, position in kept.values():
                self._keep(prediction, position)
        return [prediction for prediction, _ in kept.values()]

    def close(self) -> None:
        """Nothing to release (each append opens the file); kept for callers that close."""


def _outcome(line: bytes) -> tuple[str, tuple[bool, bool]]:
    """(sample id, (failed for good, failed)) of a prediction line, checked as a whole
    prediction (a line the full reader refuses is refused here too)."""
    prediction = parse_prediction(line)
    return prediction.sample_id, (prediction.failed_for_good, prediction.error is not None)


FINAL, FAILED, SEEN = 1, 2, 4  # bits of an outcome byte (SEEN: the sample has a line)


def _flags(outcome: tuple[bool, bool]) -> int:
    return SEEN | (FINAL if outcome[0] else 0) | (FAILED if outcome[1] else 0)


def _digested_outcome(line: bytes) -> tuple[bytes, int]:
    """(digest of the sample id, outcome bits) of a prediction line, checked as a whole
    prediction (`_outcome`): the one pass a resumed run makes over its log, which `run_eval`
    leaves out of the other logs' check (`runs.run_log_problems`) for that reason."""
    sample_id, outcome = _outcome(line)
    return sample_digest(sample_id), _flags(outcome)


def read_predictions(path: Path) -> Mapping[str, Prediction]:
    """Each sample's latest prediction in a predictions.jsonl (a cut last line left out;
    `BadLogLines` for a complete line that cannot be read), read from the file as it is used
    (`PredictionIndex`)."""
    from vqakit.runs._index import PredictionIndex  # which reads lines with this module's parsers

    return PredictionIndex(path)


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
