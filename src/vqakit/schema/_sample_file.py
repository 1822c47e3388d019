"""The samples of a large benchmark, read from samples.jsonl when they are used.

A benchmark of a million questions held as `Sample` objects takes gigabytes (about 3 kB each), so
above `RESIDENT_UP_TO` samples a loaded benchmark keeps only where each sample's line is and
what a run plans by (`SampleIndex`: a few arrays, about 40 bytes a sample) and `SampleFile`
parses a sample each time it is used. `SampleFile` is a `Sequence[Sample]`: code that iterates,
slices or indexes `benchmark.samples` works unchanged; slices and selections are views over
the same index.

Samples are told apart by a 128-bit digest of their id (`sample_digest`, `SampleKeys`), which is
how a run finds a sample's position without holding a million ids.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, overload

import numpy as np
from pydantic import ValidationError

from vqakit.schema._sample import Sample
from vqakit.schema._sample_digest import RESIDENT_UP_TO as RESIDENT_UP_TO
from vqakit.schema._sample_digest import sample_digest

DIGEST = np.dtype("S16")
READ_AHEAD = 256  # samples read with one system call when their lines are close
READ_SPAN = 1 << 21


def digests_of(ids: Iterable[str]) -> np.ndarray:
    return np.array([sample_digest(sample_id) for sample_id in ids], dtype=DIGEST)


class SampleKeys:
    """Digests of sample ids by position, and the position of a digest (sorted once, searched
    in O(log n))."""

    def __init__(self, digests: np.ndarray) -> None:
        self.digests = np.asarray(digests, dtype=DIGEST)
        self._order: np.ndarray | None = None
        self._sorted: np.ndarray | None = None

    @classmethod
    def of(cls, ids: Iterable[str]) -> SampleKeys:
        return cls(digests_of(ids))

    def __len__(self) -> int:
        return len(self.digests)

    def _index(self) -> tuple[np.ndarray, np.ndarray]:
        if self._order is None or self._sorted is None:
            self._order = np.argsort(self.digests, kind="stable")
            self._sorted = self.digests[self._order]
        return self._order, self._sorted

    def positions(self, digests: np.ndarray) -> np.ndarray:
        """The position of each digest (-1 where it is not one of these samples)."""
        order, ordered = self._index()
        digests = np.asarray(digests, dtype=DIGEST)
        if not len(ordered):
            return np.full(len(digests), -1, dtype=np.int64)
        found = np.searchsorted(ordered, digests)
        found = np.minimum(found, len(ordered) - 1)
        hit = ordered[found] == digests
        return np.where(hit, order[found], -1).astype(np.int64)

    def position(self, sample_id: str) -> int | None:
        found = int(self.positions(np.array([sample_digest(sample_id)], dtype=DIGEST))[0])
        return None if found < 0 else found


@dataclass
class SampleIndex:
    """Where each sample of a samples.jsonl is (byte offset and length of its line, its line
    number) and what a run orders samples by (its first video, as an index into `video_paths`
    or -1, and that video's start, 0.0 when none), by position."""

    offsets: np.ndarray  # int64
    lengths: np.ndarray  # int32
    lines: np.ndarray  # int32, 1-based
    keys: SampleKeys
    videos: np.ndarray  # int32
    starts: np.ndarray  # float64
    video_paths: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.offsets)


class SampleFileChanged(ValueError):
    """A sample line no longer reads as the sample it was when the benchmark was loaded."""


class _Source:
    """The samples file, opened once and read with `os.pread` (safe from any thread)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._lock = threading.Lock()

    def read(self, offset: int, length: int) -> bytes:
        if self._fd is None:
            with self._lock:
                if self._fd is None:
                    self._fd = os.open(self.path, os.O_RDONLY)
        return os.pread(self._fd, length, offset)

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]

    def __del__(self) -> None:
        if self._fd is not None:
            os.close(self._fd)


class SampleFile(Sequence[Sample]):
    """Samples read from their lines when used (see the module); a view of some of them, in
    the order of `positions` (all of them, in file order, by default)."""

    def __init__(
        self,
        path: Path,
        index: SampleIndex,
        positions: np.ndarray | None = None,
        *,
        source: _Source | None = None,
    ) -> None:
        self.path, self.index = path, index
        self.positions = np.arange(len(index), dtype=np.int64) if positions is None else positions
        self._source = source or _Source(path)
        self._keys: SampleKeys | None = None

    def __repr__(self) -> str:
        return f"SampleFile({str(self.path)!r}, {len(self)} samples)"

    def __len__(self) -> int:
        return len(self.positions)

    def _view(self, positions: np.ndarray) -> SampleFile:
        return SampleFile(self.path, self.index, positions, source=self._source)

    @overload
    def __getitem__(self, item: int) -> Sample: ...

    @overload
    def __getitem__(self, item: slice) -> SampleFile: ...

    def __getitem__(self, item: int | slice) -> Sample | SampleFile:
        if isinstance(item, slice):
            return self._view(self.positions[item])
        return self.at(int(self.positions[item]))

    def __iter__(self) -> Iterator[Sample]:
        index = self.index
        for start in range(0, len(self.positions), READ_AHEAD):
            positions = self.positions[start : start + READ_AHEAD]
            offsets, lengths = index.offsets[positions].tolist(), index.lengths[positions].tolist()
            low = min(offsets)
            high = max(offset + length for offset, length in zip(offsets, lengths, strict=True))
            if high - low > READ_SPAN:  # far apart: each line on its own
                yield from (self.at(int(position)) for position in positions)
                continue
            block = self._source.read(low, high - low)
            for position, offset, length in zip(positions.tolist(), offsets, lengths, strict=True):
                raw = block[offset - low : offset - low + length]
                try:
                    yield Sample.model_validate_json(raw)
                except ValidationError:
                    yield self.at(position)

    def __contains__(self, value: object) -> bool:
        return isinstance(value, Sample) and self.get(value.id) == value

    def at(self, position: int) -> Sample:
        """The sample at `position` of the file (not of this view)."""
        index = self.index
        raw = self._source.read(int(index.offsets[position]), int(index.lengths[position]))
        try:
            return Sample.model_validate_json(raw)
        except ValidationError:
            pass
        from vqakit.files import jsonl_record

        line = int(index.lines[position])
        record = jsonl_record(self.path, 1, line, raw.decode("utf-8", "surrogateescape"))
        try:
            if record.data is None:
                raise ValueError(record.problem)
            return Sample.model_validate(record.data)
        except ValueError:
            raise SampleFileChanged(
                f"{self.path}:{line}: no longer the sample it was when the benchmark was loaded "
                "(the file changed meanwhile); load the benchmark again"
            ) from None

    @property
    def keys(self) -> SampleKeys:
        """The digests of this view's samples by position in the view."""
        if self._keys is None:
            whole = len(self.positions) == len(self.index) and bool(
                np.array_equal(self.positions, np.arange(len(self.index)))
            )
            self._keys = self.index.keys if whole else SampleKeys(self.index.keys.digests[self.positions])
        return self._keys

    def position_of(self, sample_id: str) -> int | None:
        """The sample's position in this view."""
        return self.keys.position(sample_id)

    def get(self, sample_id: str) -> Sample | None:
        found = self.position_of(sample_id)
        return None if found is None else self.at(int(self.positions[found]))

    def line_of(self, sample_id: str) -> int | None:
        found = self.position_of(sample_id)
        return None if found is None else int(self.index.lines[self.positions[found]])

    def select(self, mask_or_positions: np.ndarray) -> SampleFile:
        """The samples at these positions of the view (or where the boolean mask is true)."""
        return self._view(self.positions[mask_or_positions])

    def in_video_order(self) -> SampleFile:
        """The view grouped by first video, videos in order of first appearance, samples by
        their window's start within a video (view order among equals), samples without a video
        last: the order `vqakit.runner` plans a run in."""
        videos = self.index.videos[self.positions]
        starts = self.index.starts[self.positions]
        if not len(videos):
            return self
        kinds, first = np.unique(videos, return_index=True)
        rank = np.empty(len(kinds), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(kinds))
        group = rank[np.searchsorted(kinds, videos)]
        group = np.where(videos < 0, len(kinds), group)  # no video: after the others
        starts = np.where(videos < 0, 0.0, starts)
        order = np.lexsort((np.arange(len(videos)), starts, group))
        return self._view(self.positions[order])


def sample_keys(samples: Sequence[Sample]) -> SampleKeys:
    """The digests of `samples` by position (kept by a `SampleFile`, made for a list)."""
    if isinstance(samples, SampleFile):
        return samples.keys
    return SampleKeys.of(sample.id for sample in samples)


def select_samples(samples: Sequence[Sample], mask: np.ndarray) -> Sequence[Sample]:
    """The samples where `mask` is true, as a view of a `SampleFile` or a list."""
    if isinstance(samples, SampleFile):
        return samples.select(mask)
    return [sample for sample, keep in zip(samples, mask, strict=True) if keep]
