"""The response cache: one SQLite file (WAL) shared by every process of a machine.

Key (`cache_key`): SHA-256 over backend, model, base URL, request parameters and every message
part: images by pixel content, video frames by their identity when they have one (the video's
content digest, frame numbers, resize and encoding; see `Frames`), so that finding a cached
reply decodes no video. Left out on purpose: API keys and other secrets, timeouts,
retry settings and concurrency, which change how a reply is fetched, not what it is.
A cache failure (locked, corrupt, full disk) is logged and the call goes on uncached.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path
from typing import Any

from vqakit.files import cache_folder, open_shared_database
from vqakit.models._images import pixel_hash
from vqakit.models._messages import CallError, Completion, Frames, Image, Message, Text, Usage, Video
from vqakit.models._secrets import redact_known

log = logging.getLogger(__name__)


def default_cache_path() -> Path:
    return cache_folder() / "responses.sqlite"


def _video_key(part: Video) -> Any:
    """A clip by its bytes; a source file by its path, size and modification time (a file
    changed in place gets a new key) with the window and rate asked for."""
    if part.data is not None:
        source = hashlib.sha256(part.data).hexdigest()
    elif part.path is not None:
        stat = os.stat(part.path)
        source = [part.path, stat.st_size, stat.st_mtime_ns]
    else:
        source = part.url
    return ["video", source, part.start_s, part.end_s, part.fps]


def _part_key(part: Text | Image | Frames | Video) -> Any:
    if isinstance(part, Text):
        return ["text", part.text]
    if isinstance(part, Video):
        return _video_key(part)
    if isinstance(part, Image):
        return ["image", pixel_hash(part.image)]
    if part.identity is not None:
        return ["frames", part.identity, list(part.times_s), part.label_times]
    return ["frames", [pixel_hash(image) for image in part.images], list(part.times_s), part.label_times]


def cache_key(spec: str, params: dict[str, Any], messages: list[Message]) -> str:
    payload = {
        "spec": spec,
        "params": params,
        "messages": [[m.role, [_part_key(p) for p in m.parts]] for m in messages],
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def open_cache_database(path: Path, schema: str) -> sqlite3.Connection:
    """A cache's SQLite file that several processes (and hosts sharing the folder) read and
    write at once."""
    connection = open_shared_database(path, timeout=30, check_same_thread=False)
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.execute(schema)
    return connection


_BATCH_ENTRIES = 64  # a batching cache writes its pending replies once this many wait
_BATCH_AGE_S = 1.0  # ... or once the oldest has waited this long


class ResponseCache:
    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path else default_cache_path()
        self._connection: sqlite3.Connection | None = None
        self._batching = 0  # open `batched()` scopes
        self._pending: dict[str, tuple[str, str, str, float]] = {}  # key -> its row, not yet written
        self._pending_since = 0.0
        self._redacted: dict[str, str] = {}  # spec -> spec with known keys redacted
        self._pending_lock = threading.Lock()

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = open_cache_database(
                self.path,
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, spec TEXT NOT NULL, "
                "completion TEXT NOT NULL, created REAL NOT NULL)",
            )
        return self._connection

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Within this scope replies are written in batches (one transaction for up to
        `_BATCH_ENTRIES`, at most `_BATCH_AGE_S` late), and all of them at its end: a run's
        thousands of replies cost a few commits. A process killed inside loses at most one
        batch of cached replies, never a record (the run's own log holds those)."""
        self._batching += 1
        try:
            yield
        finally:
            self._batching -= 1
            if not self._batching:
                self.flush()

    def flush(self) -> None:
        """Write the pending replies of a batching scope."""
        with self._pending_lock:
            rows = list(self._pending.values())
            self._pending = {}
        if not rows:
            return
        try:
            connection = self._db()
            connection.execute("BEGIN IMMEDIATE")  # one transaction (the connection autocommits)
            try:
                connection.executemany("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)", rows)
            except BaseException:
                connection.execute("ROLLBACK")
                raise
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            log.warning("response cache write failed (%s); continuing without it", error)

    def get(self, key: str) -> Completion | None:
        if (waiting := self._pending.get(key)) is not None:
            stored: str | None = waiting[2]
        else:
            try:
                row = self._db().execute("SELECT completion FROM responses WHERE key = ?", (key,)).fetchone()
            except sqlite3.Error as error:
                log.warning("response cache read failed (%s); continuing without it", error)
                return None
            stored = row[0] if row is not None else None
        if stored is None:
            return None
        data = json.loads(stored)
        data["usage"] = Usage(**data["usage"])
        data["error"] = CallError(**data["error"]) if data.get("error") else None
        return Completion(**{**data, "cached": True})

    def put(self, key: str, spec: str, completion: Completion) -> None:
        if completion.error is not None:
            return  # failures are never cached
        if (redacted := self._redacted.get(spec)) is None:
            redacted = self._redacted[spec] = redact_known(spec)
        row = (key, redacted, json.dumps(asdict(completion)), time.time())
        if self._batching:
            with self._pending_lock:
                if not self._pending:
                    self._pending_since = time.monotonic()
                self._pending[key] = row
                waited = time.monotonic() - self._pending_since
                due = len(self._pending) >= _BATCH_ENTRIES or waited > _BATCH_AGE_S
            if due:
                self.flush()
            return
        try:
            self._db().execute("INSERT OR REPLACE INTO responses VALUES (?, ?, ?, ?)", row)
        except sqlite3.Error as error:
            log.warning("response cache write failed (%s); continuing without it", error)

    def stats(self) -> dict[str, Any]:
        self.flush()
        if not self.path.exists():
            return {"path": str(self.path), "entries": 0, "bytes": 0, "models": {}}
        rows = self._db().execute("SELECT spec, COUNT(*) FROM responses GROUP BY spec").fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*"))
        return {
            "path": str(self.path),
            "entries": sum(n for _, n in rows),
            "bytes": size,
            "models": dict(rows),
        }

    def clear(self, spec: str | None = None) -> int:
        self.flush()
        if not self.path.exists():
            return 0
        if spec is None:
            cursor = self._db().execute("DELETE FROM responses")
        else:
            cursor = self._db().execute("DELETE FROM responses WHERE spec = ?", (redact_known(spec),))
        self._db().execute("VACUUM")
        return cursor.rowcount

    def close(self) -> None:
        self.flush()
        if self._connection is not None:
            self._connection.close()
            self._connection = None
