"""A run folder's logs read as indexes: the latest record of each sample (and judge) without
holding the records.

`LatestLines` reads an append-only JSONL log once (through `files.LogReader`, the one log reader,
its policy and each log's own parser: a complete line that cannot be read is `BadLogLines`) and
keeps, per key (a sample id's digest and, for judgments, the judge's kind), where its latest line
is: about 34 bytes a record, however long the records. The mappings below read a record from
its line when it is asked for, so that scoring and reporting a run of a million samples holds
only the samples they are working on. Keys come in the order of their first line, as a dict
built by reading the log in order would give them.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, overload

import numpy as np
import pydantic_core

from vqakit.files import LogReader
from vqakit.runs._logs import parse_judgment, parse_prediction, parse_score_row
from vqakit.schema import Prediction, Sample, sample_keys
from vqakit.schema import sample_digest as digest_of

DIGEST = np.dtype("S16")

Keyed = Callable[[bytes], tuple[str, str]]


def json_line(line: bytes) -> Any:
    """A JSON line as `json.loads` reads it, by pydantic's faster reader where that can: it
    refuses only lines `json.loads` reads too (escaped lone surrogates), which go to the latter."""
    try:
        return pydantic_core.from_json(line)
    except ValueError:
        return json.loads(line)


def sample_key(line: bytes) -> tuple[str, str]:
    """(sample id, "") of a scores.jsonl line (read as `parse_score_row` reads it)."""
    return parse_score_row(line)["sample_id"], ""


def judgment_key(line: bytes) -> tuple[str, str]:
    """(sample id, judge kind) of a judgments.jsonl line (`parse_judgment`)."""
    record = parse_judgment(line)
    return record["sample_id"], record["kind"]


def prediction_key(line: bytes) -> tuple[str, str]:
    """A predictions.jsonl line checked as a `Prediction` (`parse_prediction`), and its id."""
    return parse_prediction(line).sample_id, ""


def _opens(values: np.ndarray) -> np.ndarray:
    """Where a run of equal values starts."""
    return np.r_[True, values[1:] != values[:-1]] if len(values) else np.zeros(0, dtype=bool)


class LatestLines:
    """Where the latest line of each (sample, kind) of a log is (see the module)."""

    def __init__(self, path: Path, key: Keyed, hint: str | None = None) -> None:
        self.path = path
        digests, kinds, offsets = bytearray(), array("h"), array("q")
        codes: dict[str, int] = {}
        self.lines = 0
        reader = LogReader(path, key)
        for offset, _, (sample_id, kind) in reader:
            digests += digest_of(sample_id)
            kinds.append(codes.setdefault(kind, len(codes)))
            offsets.append(offset)
            self.lines += 1
        reader.checked(hint)  # a line that cannot be read: refused, naming it
        self.kinds = list(codes)
        found = np.frombuffer(digests, dtype=DIGEST)  # views of the buffers: no copy
        kind = np.frombuffer(kinds, dtype=np.int16)
        at = np.frombuffer(offsets, dtype=np.int64)
        order = np.lexsort((np.arange(len(found)), kind, found))  # by key, then line
        found, kind, at = found[order], kind[order], at[order]
        opens = _opens(found) | _opens(kind)  # the first line of each key
        last = np.r_[opens[1:], True] if len(found) else opens  # its latest line
        self.digests, self.kind_codes, self.offsets = found[last], kind[last], at[last]
        self.first = at[opens]  # the offset of each key's first line (the order keys come in)
        self.samples = int(np.count_nonzero(_opens(self.digests)))
        self._fd: int | None = None

    def __len__(self) -> int:
        return len(self.offsets)

    def find(self, sample_id: str) -> list[tuple[str, int, int]]:
        """(kind, offset of its latest line, offset of its first) of each kind the sample has a
        record of."""
        wanted = np.array([digest_of(sample_id)], dtype=DIGEST)
        low = int(np.searchsorted(self.digests, wanted, "left")[0])
        high = int(np.searchsorted(self.digests, wanted, "right")[0])
        return [self._entry(i) for i in range(low, high)]

    def _entry(self, i: int) -> tuple[str, int, int]:
        return self.kinds[int(self.kind_codes[i])], int(self.offsets[i]), int(self.first[i])

    def has(self, digests: np.ndarray) -> np.ndarray:
        """Whether each digest has a record."""
        return self.latest(digests) >= 0

    def latest(self, digests: np.ndarray) -> np.ndarray:
        """The offset of each digest's latest line (of its first kind), -1 where it has none."""
        if not len(self.digests):
            return np.full(len(digests), -1, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.digests, digests), len(self.digests) - 1)
        return np.where(self.digests[at] == digests, self.offsets[at], -1)

    def read(self, offset: int) -> bytes:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY)
        chunks = []
        while True:
            chunk = os.pread(self._fd, 1 << 16, offset)
            end = chunk.find(b"\n")
            if end >= 0 or not chunk:
                chunks.append(chunk if end < 0 else chunk[: end + 1])
                return b"".join(chunks)
            chunks.append(chunk)
            offset += len(chunk)

    def in_order(self) -> Iterator[list[tuple[str, int, int]]]:
        """Each sample's entries (as `find`), samples in the order they first appear."""
        if not len(self):
            return
        starts = np.flatnonzero(_opens(self.digests))
        ends = np.r_[starts[1:], len(self)]
        for group in np.argsort(np.minimum.reduceat(self.first, starts), kind="stable"):
            yield [self._entry(i) for i in range(int(starts[group]), int(ends[group]))]

    def __del__(self) -> None:
        if getattr(self, "_fd", None) is not None:
            os.close(self._fd)  # type: ignore[arg-type]


class _LazyRecords(Mapping[str, Any]):
    """Sample id -> its latest record(s), read from the log when asked for."""

    def __init__(self, path: Path, key: Keyed, hint: str | None = None) -> None:
        self.lines = LatestLines(path, key, hint)

    def _value(self, found: list[tuple[str, int, int]]) -> Any:
        raise NotImplementedError

    def _id(self, value: Any) -> str:
        raise NotImplementedError

    def __getitem__(self, sample_id: str) -> Any:
        found = self.lines.find(sample_id) if isinstance(sample_id, str) else []
        if not found:
            raise KeyError(sample_id)
        return self._value(found)

    def __contains__(self, sample_id: object) -> bool:
        return isinstance(sample_id, str) and bool(self.lines.find(sample_id))

    def __len__(self) -> int:
        return self.lines.samples

    def items(self) -> Iterator[tuple[str, Any]]:  # type: ignore[override]
        for found in self.lines.in_order():
            value = self._value(found)
            yield self._id(value), value

    def values(self) -> Iterator[Any]:  # type: ignore[override]
        return (value for _, value in self.items())

    def __iter__(self) -> Iterator[str]:
        return (sample_id for sample_id, _ in self.items())

    def has(self, digests: np.ndarray) -> np.ndarray:
        """Whether each sample (by digest) has a record: for selecting many at once."""
        return self.lines.has(digests)

    def lookup(self, digests: np.ndarray) -> list[Any]:
        """The record of each sample (by digest), None where it has none: many at once (logs of
        one record a sample: predictions, scores)."""
        return [None if at < 0 else self._value([("", at, at)]) for at in self.lines.latest(digests).tolist()]


class PredictionIndex(_LazyRecords):
    """predictions.jsonl as {sample id: latest Prediction}, read as used."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, prediction_key)

    def _value(self, found: list[tuple[str, int, int]]) -> Prediction:
        return Prediction.model_validate_json(self.lines.read(found[0][1]))

    def _id(self, value: Prediction) -> str:
        return value.sample_id


class RecordIndex(_LazyRecords):
    """A log of JSON records by sample (scores.jsonl) as {sample id: latest record}."""

    def __init__(self, path: Path, hint: str | None = None) -> None:
        super().__init__(path, sample_key, hint)

    def _value(self, found: list[tuple[str, int, int]]) -> dict[str, Any]:
        return json_line(self.lines.read(found[0][1]))

    def _id(self, value: dict[str, Any]) -> str:
        return value["sample_id"]


class JudgmentIndex(_LazyRecords):
    """judgments.jsonl as {sample id: {judge kind: latest record}}, read as used."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, judgment_key)

    def _value(self, found: list[tuple[str, int, int]]) -> dict[str, dict[str, Any]]:
        ordered = sorted(found, key=lambda entry: entry[2])  # kinds in the order they first appear
        return {kind: json_line(self.lines.read(offset)) for kind, offset, _ in ordered}

    def _id(self, value: dict[str, dict[str, Any]]) -> str:
        return next(iter(value.values()))["sample_id"]

    def lookup(self, digests: np.ndarray) -> list[Any]:
        raise TypeError("judgments are looked up by sample id (several records a sample)")

    @property
    def records(self) -> int:
        """Latest records, one per sample and judge."""
        return len(self.lines)


class JsonlRows(Sequence[dict[str, Any]]):
    """The rows of scores.jsonl in order, as a sequence read from disk each time it is iterated
    (score rows handed to judges' and metrics' summaries): bounded memory for any number of
    rows. `BadLogLines` for a line that cannot be read."""

    def __init__(self, path: Path) -> None:
        self.path = path
        reader = LogReader(path, parse_score_row)
        offsets = array("q", (offset for offset, _, _ in reader))
        reader.checked()
        self.offsets = np.frombuffer(offsets, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.offsets)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        count = len(self.offsets)
        for index, (_, _, row) in enumerate(LogReader(self.path, parse_score_row)):
            if index >= count:
                return
            yield row

    @overload
    def __getitem__(self, item: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, item: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, item: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(item, slice):
            return [self[i] for i in range(*item.indices(len(self)))]
        with open(self.path, "rb") as handle:
            handle.seek(int(self.offsets[item]))
            return parse_score_row(handle.readline().rstrip(b"\r\n"))


BLOCK = 1024  # samples whose records are looked up together


def paired(samples: Sequence[Sample], records: Mapping[str, Any]) -> Iterator[tuple[Sample, Any]]:
    """Each sample with its record (None when it has none), in the samples' order; the records
    of a log index are looked up a block of samples at a time."""
    if not isinstance(records, _LazyRecords):
        for sample in samples:
            yield sample, records.get(sample.id)
        return
    digests = sample_keys(samples).digests
    ordered = iter(samples)
    for start in range(0, len(digests), BLOCK):
        for record in records.lookup(digests[start : start + BLOCK]):
            yield next(ordered), record


def with_records(samples: Sequence[Sample], records: Mapping[str, Any]) -> np.ndarray:
    """Which of `samples` have a record, by position (no sample read for a large benchmark's)."""
    if isinstance(records, _LazyRecords):
        return records.has(sample_keys(samples).digests)
    return np.array([sample.id in records for sample in samples], dtype=bool)
