"""The frame store: encoded frames, and the strips run folders keep, shared by every sample, run,
method, model and sweep of a machine (or of a cluster whose hosts see one cache folder).

One SQLite file in the cache folder, `frames.sqlite` (several processes read and write at once;
each write is one short transaction; WAL mode locally, the rollback journal on a network file
system, see `files.open_shared_database`). Entries are blobs under a key the caller
derives from what the blob is (`frame_key`: the video's content digest, the exact frame number,
the resize and the encoding), so the same frame asked by any run is found under the same key.

Size: the blobs' total is kept at most `max_bytes` (`VQAKIT_FRAME_CACHE_SIZE`, e.g. `4GiB`;
2 GiB by default). When a write goes over it, the least recently used entries are removed until
the total is under 90% of the cap. Reads mark entries used (at most once a minute per entry, so
reading stays read-only most of the time).

A store that cannot be read or written (locked past the timeout, corrupt, disk full) is logged
and treated as empty: the caller decodes instead, a run never fails for it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vqakit.files import cache_folder, open_shared_database
from vqakit.video._identity import _digest, file_version
from vqakit.video._resize import Resize

log = logging.getLogger(__name__)

DEFAULT_MAX_BYTES = 2 * 2**30
TOUCH_EVERY_S = 60.0
_CHUNK = 500  # keys per SQL statement
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "kib": 2**10, "m": 10**6, "mb": 10**6, "mib": 2**20,
          "g": 10**9, "gb": 10**9, "gib": 2**30, "t": 10**12, "tb": 10**12, "tib": 2**40}  # fmt: skip

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blobs (
    key TEXT PRIMARY KEY, data BLOB NOT NULL, size INTEGER NOT NULL,
    width INTEGER NOT NULL, height INTEGER NOT NULL, used REAL NOT NULL);
CREATE INDEX IF NOT EXISTS blobs_used ON blobs (used);
CREATE TABLE IF NOT EXISTS videos (
    path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, digest TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS totals (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT OR IGNORE INTO totals VALUES ('bytes', 0);
CREATE TRIGGER IF NOT EXISTS blobs_added AFTER INSERT ON blobs
    BEGIN UPDATE totals SET value = value + NEW.size WHERE name = 'bytes'; END;
CREATE TRIGGER IF NOT EXISTS blobs_removed AFTER DELETE ON blobs
    BEGIN UPDATE totals SET value = value - OLD.size WHERE name = 'bytes'; END;
"""


def parse_size(text: str) -> int:
    """`"2GiB"`, `"500 MB"`, `"1048576"` -> bytes; ValueError for anything else."""
    found = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", text)
    if found is None or found.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {text!r} (e.g. 2GiB, 500MB)")
    return int(float(found.group(1)) * _UNITS[found.group(2).lower()])


def default_store_path() -> Path:
    return cache_folder() / "frames.sqlite"


def default_max_bytes() -> int:
    given = os.environ.get("VQAKIT_FRAME_CACHE_SIZE")
    return parse_size(given) if given else DEFAULT_MAX_BYTES


def frame_key(digest: str, frame_number: int, resize: Resize | None, encoding: dict[str, Any] | None) -> str:
    """The key of one frame: which video (content digest), which frame, at which size, encoded how."""
    what = {
        "video": digest,
        "frame": int(frame_number),
        "resize": resize.key() if resize is not None else None,
        "encoding": encoding,
    }
    return "frame:" + hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()


@dataclass(frozen=True)
class Sampled:
    """The frames a sampling spec picked from one version of a video."""

    digest: str  # the video's content digest
    numbers: list[int]
    times_s: list[float]
    duration_s: float  # the video's exact duration (from its frame index)


class FrameStore:
    """Blobs by key in `path` (default: the cache folder's frames.sqlite), at most `max_bytes`."""

    def __init__(self, path: str | Path | None = None, max_bytes: int | None = None) -> None:
        self.path = Path(path) if path else default_store_path()
        self.max_bytes = max_bytes if max_bytes is not None else default_max_bytes()
        self._local = threading.local()  # one connection per thread
        self._touched: dict[str, float] = {}

    def _db(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = open_shared_database(self.path, timeout=30)
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.executescript(_SCHEMA)
            self._local.connection = connection
        return connection

    def _safely(self, what: str, action: Any, default: Any) -> Any:
        try:
            return action(self._db())
        except sqlite3.Error as error:
            log.warning("frame store %s failed (%s); continuing without it", what, error)
            return default

    # --- videos -----------------------------------------------------------------------------

    def digest(self, video: str | Path) -> str:
        """The video's content digest: the one kept for its path, size and mtime, else computed
        (once) and kept."""
        path, size, mtime_ns = file_version(video)

        def kept(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT digest FROM videos WHERE path = ? AND size = ? AND mtime_ns = ?",
                (path, size, mtime_ns),
            ).fetchone()
            return row[0] if row else None

        found = self._safely("read", kept, None)
        if found is None:
            found = _digest(path, size, mtime_ns)
            self._safely(
                "write",
                lambda db: db.execute(
                    "INSERT OR REPLACE INTO videos VALUES (?, ?, ?, ?)", (path, size, mtime_ns, found)
                ),
                None,
            )
        return found

    # --- which frames a sampling spec picks ----------------------------------------------------

    @staticmethod
    def _sampled_key(video: str | Path, spec: str) -> str:
        # the layout's version is hashed too: an entry of another layout is never read as this one
        what = ["digest numbers times duration", *file_version(video), spec]
        return "sampled:" + hashlib.sha256(json.dumps(what).encode()).hexdigest()

    def sampled(self, video: str | Path, spec: str) -> Sampled | None:
        """What `spec` (its text) picked from this version of the video before (`keep_sampled`),
        so that a re-run need not index the video again; None when not kept."""
        key = self._sampled_key(video, spec)
        held = self.get_many([key]).get(key)
        if held is None:
            return None
        try:
            digest, numbers, times, duration = json.loads(held[0])
            return Sampled(str(digest), [int(n) for n in numbers], [float(t) for t in times], float(duration))
        except (ValueError, TypeError):
            return None

    def keep_sampled(self, video: str | Path, spec: str, sampled: Sampled) -> None:
        data = json.dumps([sampled.digest, sampled.numbers, sampled.times_s, sampled.duration_s]).encode()
        self.put_many([(self._sampled_key(video, spec), data, 0, 0)])

    # --- blobs ------------------------------------------------------------------------------

    def get_many(self, keys: Iterable[str]) -> dict[str, tuple[bytes, int, int]]:
        """{key: (data, width, height)} for the keys held; missing keys are left out."""
        wanted = list(dict.fromkeys(keys))
        found: dict[str, tuple[bytes, int, int]] = {}

        def read(db: sqlite3.Connection) -> None:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                for key, data, width, height in db.execute(
                    f"SELECT key, data, width, height FROM blobs WHERE key IN ({marks})", chunk
                ):
                    found[key] = (bytes(data), width, height)

        self._safely("read", read, None)
        self._touch(list(found))
        return found

    def missing(self, keys: Iterable[str]) -> set[str]:
        """The keys not held (all of them when the store cannot be read)."""
        wanted = list(dict.fromkeys(keys))
        held: set[str] = set()

        def read(db: sqlite3.Connection) -> bool:
            for start in range(0, len(wanted), _CHUNK):
                chunk = wanted[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                held.update(
                    row[0] for row in db.execute(f"SELECT key FROM blobs WHERE key IN ({marks})", chunk)
                )
            return True

        if not self._safely("read", read, False):
            return set(wanted)
        self._touch(list(held))
        return set(wanted) - held

    def _touch(self, keys: list[str]) -> None:
        now = time.time()
        stale = [key for key in keys if now - self._touched.get(key, 0.0) > TOUCH_EVERY_S]
        if not stale:
            return
        for key in stale:
            self._touched[key] = now
        if len(self._touched) > 100_000:
            self._touched = {k: t for k, t in self._touched.items() if now - t <= TOUCH_EVERY_S}

        def write(db: sqlite3.Connection) -> None:
            for start in range(0, len(stale), _CHUNK):
                chunk = stale[start : start + _CHUNK]
                marks = ",".join("?" * len(chunk))
                update = f"UPDATE blobs SET used = ? WHERE key IN ({marks}) AND used < ?"
                db.execute(update, [now, *chunk, now - TOUCH_EVERY_S])

        self._safely("write", write, None)

    def put_many(self, items: Iterable[tuple[str, bytes, int, int]]) -> None:
        """Keep blobs `(key, data, width, height)`; a key already held keeps its blob (keys name
        content). Evicts the least recently used entries when the cap is passed."""
        rows = [(key, data, len(data), width, height, time.time()) for key, data, width, height in items]
        if not rows:
            return

        def write(db: sqlite3.Connection) -> int:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.executemany("INSERT OR IGNORE INTO blobs VALUES (?, ?, ?, ?, ?, ?)", rows)
                total = db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()[0]
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
            return total

        total = self._safely("write", write, 0)
        if total > self.max_bytes:
            self._evict(int(self.max_bytes * 0.9))

    def _evict(self, target: int) -> None:
        def evict(db: sqlite3.Connection) -> None:
            db.execute("BEGIN IMMEDIATE")
            try:
                total = db.execute("SELECT value FROM totals WHERE name = 'bytes'").fetchone()[0]
                excess = total - target
                doomed: list[str] = []
                for key, size in db.execute("SELECT key, size FROM blobs ORDER BY used"):
                    if excess <= 0:
                        break
                    doomed.append(key)
                    excess -= size
                for start in range(0, len(doomed), _CHUNK):
                    chunk = doomed[start : start + _CHUNK]
                    db.execute(f"DELETE FROM blobs WHERE key IN ({','.join('?' * len(chunk))})", chunk)
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

        self._safely("eviction", evict, None)

    # --- the cache verbs --------------------------------------------------------------------

    def stats(self) -> dict[str, Any]:
        empty = {"path": str(self.path), "entries": 0, "bytes": 0, "max_bytes": self.max_bytes, "videos": 0}
        if not self.path.exists():
            return empty
        db = self._db()
        entries, stored = db.execute("SELECT COUNT(*), COALESCE(SUM(size), 0) FROM blobs").fetchone()
        videos = db.execute("SELECT COUNT(*) FROM videos").fetchone()[0]
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*"))
        return {**empty, "entries": entries, "bytes": stored, "file_bytes": size, "videos": videos}

    def clear(self) -> int:
        """Remove every entry; returns how many there were."""
        if not self.path.exists():
            return 0
        db = self._db()
        removed = db.execute("DELETE FROM blobs").rowcount
        db.execute("DELETE FROM videos")
        db.execute("VACUUM")
        return removed

    def close(self) -> None:
        connection = getattr(self._local, "connection", None)
        if connection is not None:
            connection.close()
            self._local.connection = None
