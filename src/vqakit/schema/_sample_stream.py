"""Reading samples.jsonl line by line while it is checked, in bounded memory.

Each line goes through the hardened reader of `vqakit.files` (`jsonl_record`) and the `Sample`
model, as a whole-file read would; what is kept is the samples themselves while there are at
most `RESIDENT_UP_TO` (held in memory, read without NumPy), and beyond that their `SampleIndex`
(where each line is, its id's digest, its first video and window start): the benchmark's
samples are then a `SampleFile`
over the index, and a clean index is kept in the cache folder (`samples-index/`), keyed by the
file's size, time and inode, by vqakit's version and the sample checks registered, so that
loading the same benchmark again reads no sample (a resumed run of a million questions starts in
a second). A cached index is used only after the media paths it names are looked up again.

Files this streaming read does not cover (UTF-16 text, lines ended by a bare CR) are read whole,
as before.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import logging
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from vqakit.files import cache_folder, jsonl_record, write_atomic
from vqakit.schema._problem import Problem, _problems_from
from vqakit.schema._sample import Sample
from vqakit.schema._sample_digest import RESIDENT_UP_TO, sample_digest

if TYPE_CHECKING:  # NumPy and the large benchmark's reader: only for a benchmark of more than
    import numpy as np  # RESIDENT_UP_TO samples (one held in memory is read without them)

    from vqakit.schema._sample_file import SampleFile, SampleIndex

log = logging.getLogger(__name__)

CHUNK = 1 << 22
CACHE = "samples-index"
INDEX_FORMAT = 1

CheckSample = Callable[[int, Sample], list[Problem]]


class Fallback(Exception):
    """The file needs the whole-file reader (UTF-16 text, or a line ended by a bare CR)."""


def _raw_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(offset, line without its LF) of each line; a UTF-8 byte-order mark is skipped."""
    with open(path, "rb") as handle:
        head = handle.read(3)
        if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
            raise Fallback
        start = 3 if head == codecs.BOM_UTF8 else 0
        handle.seek(start)
        offset, rest = start, b""
        while chunk := handle.read(CHUNK):
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                yield offset, line
                offset += len(line) + 1
        if rest:
            yield offset, rest


@dataclass
class _Indexer:
    """The arrays of a `SampleIndex`, grown one sample at a time."""

    offsets: array = field(default_factory=lambda: array("q"))
    lengths: array = field(default_factory=lambda: array("l"))
    lines: array = field(default_factory=lambda: array("l"))
    videos: array = field(default_factory=lambda: array("l"))
    starts: array = field(default_factory=lambda: array("d"))
    digests: bytearray = field(default_factory=bytearray)
    video_paths: dict[str, int] = field(default_factory=dict)
    media: set[str] = field(default_factory=set)

    def add(self, offset: int, length: int, line: int, sample: Sample) -> None:
        self.offsets.append(offset)
        self.lengths.append(length)
        self.lines.append(line)
        self.digests += sample_digest(sample.id)
        first = sample.videos[0] if sample.videos else None
        known = self.video_paths
        self.videos.append(-1 if first is None else known.setdefault(first.path, len(known)))
        self.starts.append(0.0 if first is None or first.start_s is None else first.start_s)
        self.media.update(ref.path for ref in sample.videos)
        if sample.subtitles is not None:
            self.media.add(sample.subtitles)
        self.media.update(p.mask for track in sample.objects for p in track.points if p.mask is not None)

    def index(self, keep: np.ndarray | None = None) -> SampleIndex:
        import numpy as np

        from vqakit.schema._sample_file import DIGEST, SampleIndex, SampleKeys

        def kept(values: Any, dtype: Any) -> np.ndarray:
            found = np.frombuffer(values, dtype=dtype) if len(values) else np.zeros(0, dtype=dtype)
            return (found if keep is None else found[keep]).copy()

        return SampleIndex(
            offsets=kept(self.offsets, np.int64),
            lengths=kept(self.lengths, np.int32 if self.lengths.itemsize == 4 else np.int64).astype(np.int32),
            lines=kept(self.lines, np.int32 if self.lines.itemsize == 4 else np.int64).astype(np.int32),
            keys=SampleKeys(kept(bytes(self.digests), DIGEST)),
            videos=kept(self.videos, np.int32 if self.videos.itemsize == 4 else np.int64).astype(np.int32),
            starts=kept(self.starts, np.float64),
            video_paths=list(self.video_paths),
        )


@dataclass
class StreamedSamples:
    samples: Sequence[Sample]
    lines: Mapping[str, int]
    index: SampleIndex | None = None  # a large file's index, to keep in the cache folder
    media: set[str] = field(default_factory=set)  # the media paths its samples name
    key: str | None = None  # its key in the cache folder


class SampleLines(Mapping[str, int]):
    """Sample id -> line in samples.jsonl, from a `SampleFile`'s index."""

    def __init__(self, samples: SampleFile) -> None:
        self.samples = samples

    def __getitem__(self, sample_id: str) -> int:
        found = self.samples.line_of(sample_id)
        if found is None:
            raise KeyError(sample_id)
        return found

    def __iter__(self) -> Iterator[str]:
        return (sample.id for sample in self.samples)

    def __len__(self) -> int:
        return len(self.samples)


def stream_samples(root: Path, relative: str, check: CheckSample, problems: list[Problem]) -> StreamedSamples:
    """The samples of `root/relative` (read line by line; see the module), their problems and
    those `check` finds added to `problems` (duplicates and problem lines left out, as the
    whole-file reader does)."""
    path = root / relative
    found: list[Problem] = []
    checked: list[Problem] = []
    indexer = _Indexer()
    resident: list[Sample] | None = []
    line, named = 0, Path(relative)
    for offset, raw in _raw_lines(path):
        line += 1
        if b"\r" in raw[:-1]:
            raise Fallback
        text = raw.decode("utf-8", "surrogateescape")
        if not text.strip():
            continue
        record = jsonl_record(named, 1, line, text)
        if record.problem is not None:
            found.append(Problem(relative, line, record.problem.field, record.problem.message))
            continue
        try:
            sample = Sample.model_validate(record.data)
        except ValidationError as error:
            found += _problems_from(error, relative, line)
            continue
        indexer.add(offset, len(raw) + 1, line, sample)
        checked += check(line, sample)
        if resident is not None:
            resident.append(sample)
            if len(resident) > RESIDENT_UP_TO:
                resident = None
    if resident is not None:
        return _held(resident, indexer, relative, found, checked, problems)
    from vqakit.schema._sample_file import SampleFile

    keep, duplicates = _duplicates(indexer, path, relative)
    if duplicates:
        dropped = {problem.line for problem in duplicates}
        checked = [problem for problem in checked if problem.line not in dropped]
    problems += found + duplicates + checked
    index = indexer.index(keep)
    lazy = SampleFile(path, index)
    return StreamedSamples(lazy, SampleLines(lazy), index, indexer.media)


def _held(
    resident: list[Sample],
    indexer: _Indexer,
    relative: str,
    found: list[Problem],
    checked: list[Problem],
    problems: list[Problem],
) -> StreamedSamples:
    """The samples of a file small enough to hold (`RESIDENT_UP_TO`), their problems added to
    `problems`: what `_duplicates` and the index give a large one, without NumPy."""
    first: dict[str, int] = {}
    samples, lines, duplicates = [], {}, []
    for sample, line in zip(resident, indexer.lines, strict=True):
        if sample.id in first:
            message = f"duplicate id {sample.id!r} (first on line {first[sample.id]})"
            duplicates.append(Problem(relative, line, "id", message))
            continue
        first[sample.id] = line
        samples.append(sample)
        lines[sample.id] = line
    dropped = {problem.line for problem in duplicates}
    problems += found + duplicates + [problem for problem in checked if problem.line not in dropped]
    return StreamedSamples(samples, lines)


def _duplicates(indexer: _Indexer, path: Path, relative: str) -> tuple[np.ndarray | None, list[Problem]]:
    """(the samples to keep, or None for all; a problem per repeated id, at its later lines)."""
    import numpy as np

    from vqakit.schema._sample_file import DIGEST

    digests = np.frombuffer(bytes(indexer.digests), dtype=DIGEST) if indexer.digests else np.zeros(0, DIGEST)
    order = np.argsort(digests, kind="stable")  # equal digests: earlier lines first
    ordered = digests[order]
    opens = np.r_[True, ordered[1:] != ordered[:-1]] if len(ordered) else np.zeros(0, dtype=bool)
    if opens.all():
        return None, []
    first = order[np.maximum.accumulate(np.where(opens, np.arange(len(order)), 0))]
    keep = np.ones(len(digests), dtype=bool)
    problems = []
    with open(path, "rb") as handle:
        for at in np.flatnonzero(~opens):
            position = int(order[at])
            keep[position] = False
            handle.seek(indexer.offsets[position])
            sample_id = Sample.model_validate_json(handle.read(indexer.lengths[position])).id
            message = f"duplicate id {sample_id!r} (first on line {indexer.lines[int(first[at])]})"
            problems.append(Problem(relative, indexer.lines[position], "id", message))
    return keep, problems


# --- the index kept in the cache folder ------------------------------------------------------


def cache_key(root: Path, relative: str, extra: Sequence[str]) -> str | None:
    """What a cached index of `root/relative` depends on, digested; None when it cannot be told."""
    from vqakit import __version__
    from vqakit.schema._checks import sample_checks

    try:
        info = (root / relative).resolve().stat()
    except OSError:
        return None
    checks = [f"{getattr(c, '__module__', '')}.{getattr(c, '__qualname__', c)}" for c in sample_checks()]
    parts = [
        str(INDEX_FORMAT), __version__, str((root / relative).resolve()),
        f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}:{info.st_dev}", *checks, *extra,
    ]  # fmt: skip
    return hashlib.sha256("\0".join(parts).encode("utf-8", "surrogatepass")).hexdigest()


def _cache_path(key: str) -> Path:
    return cache_folder() / CACHE / f"{key}.npz"


def save_index(key: str, found: StreamedSamples) -> None:
    """Keep a clean index in the cache folder (a failure only means the next load reads again)."""
    index = found.index
    if index is None:
        return
    import numpy as np

    meta = {"video_paths": index.video_paths, "media": sorted(found.media)}

    def write(out: Any) -> None:
        np.savez(
            out,
            offsets=index.offsets, lengths=index.lengths, lines=index.lines, digests=index.keys.digests,
            videos=index.videos, starts=index.starts, meta=np.frombuffer(json.dumps(meta).encode(), np.uint8),
        )  # fmt: skip

    try:
        write_atomic(_cache_path(key), write)
    except OSError as error:
        log.debug("samples index not cached: %s", error)


def load_index(key: str, path: Path) -> tuple[SampleFile, set[str]] | None:
    """The samples of a cached index, and the media paths they name; None when there is none."""
    stored_at = _cache_path(key)
    if not stored_at.is_file():  # as for any benchmark held in memory: NumPy is not imported
        return None
    import numpy as np

    from vqakit.schema._sample_file import SampleFile, SampleIndex, SampleKeys

    try:
        with np.load(stored_at) as stored:
            meta = json.loads(stored["meta"].tobytes())
            index = SampleIndex(
                offsets=stored["offsets"], lengths=stored["lengths"], lines=stored["lines"],
                keys=SampleKeys(stored["digests"]), videos=stored["videos"], starts=stored["starts"],
                video_paths=list(meta["video_paths"]),
            )  # fmt: skip
    except (OSError, ValueError, KeyError):
        return None
    if len(index) <= RESIDENT_UP_TO:  # a benchmark this small is held in memory
        return None
    return SampleFile(path, index), set(meta["media"])
