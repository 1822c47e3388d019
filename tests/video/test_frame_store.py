"""The frame store: blobs by key in one SQLite file, a size cap with least-recently-used
eviction, video digests kept by path, size and mtime, and several processes at once."""

from __future__ import annotations

import multiprocessing
import os
import time

import pytest

from vqakit.video import FrameStore, Resize, content_digest, frame_key, parse_size
from vqakit.video import _frame_store as frame_store_module


def test_keys_name_what_a_frame_is():
    base = frame_key("d" * 64, 3, Resize(short_side=448), {"format": "jpeg", "quality": 90})
    assert base == frame_key("d" * 64, 3, Resize(short_side=448), {"quality": 90, "format": "jpeg"})
    others = [
        frame_key("e" * 64, 3, Resize(short_side=448), {"format": "jpeg", "quality": 90}),
        frame_key("d" * 64, 4, Resize(short_side=448), {"format": "jpeg", "quality": 90}),
        frame_key("d" * 64, 3, Resize(short_side=224), {"format": "jpeg", "quality": 90}),
        frame_key("d" * 64, 3, None, {"format": "jpeg", "quality": 90}),
        frame_key("d" * 64, 3, Resize(short_side=448), {"format": "jpeg", "quality": 80}),
        # enlarging changes the pixels: a frame kept at its own size is not the enlarged one
        frame_key("d" * 64, 3, Resize(short_side=448, upscale=True), {"format": "jpeg", "quality": 90}),
        frame_key("d" * 64, 3, Resize(short_side=448, max_pixels=10_000), {"format": "jpeg", "quality": 90}),
    ]
    assert len({base, *others}) == 8


def test_put_get_missing_and_clear(tmp_path):
    store = FrameStore(tmp_path / "frames.sqlite")
    store.put_many([("a", b"AAAA", 2, 1), ("b", b"BB", 1, 1)])
    store.put_many([("a", b"other bytes", 9, 9)])  # a key names content: the first blob stays
    assert store.get_many(["a", "b", "c"]) == {"a": (b"AAAA", 2, 1), "b": (b"BB", 1, 1)}
    assert store.missing(["a", "c", "d"]) == {"c", "d"}
    stats = store.stats()
    assert stats["entries"] == 2 and stats["bytes"] == 6
    assert store.clear() == 2
    assert store.stats()["entries"] == 0 and store.get_many(["a"]) == {}


def test_least_recently_used_entries_go_first_past_the_cap(tmp_path, monkeypatch):
    monkeypatch.setattr(frame_store_module, "TOUCH_EVERY_S", 0.0)
    store = FrameStore(tmp_path / "frames.sqlite", max_bytes=1000)
    for name in "abcd":
        store.put_many([(name, bytes(200), 1, 1)])
        time.sleep(0.01)
    store.get_many(["a"])  # a is used again: b is now the oldest
    time.sleep(0.01)
    store.put_many([("e", bytes(300), 1, 1)])  # 1100 > 1000: down to 900 or less
    held = set(store.get_many("abcde"))
    assert "b" not in held and {"a", "e"} <= held
    assert store.stats()["bytes"] <= 900


def test_size_from_the_environment(monkeypatch):
    assert parse_size("2GiB") == 2 * 2**30 and parse_size("500 MB") == 500 * 10**6 and parse_size("42") == 42
    with pytest.raises(ValueError, match="not a size"):
        parse_size("lots")
    monkeypatch.setenv("VQAKIT_FRAME_CACHE_SIZE", "3MiB")
    assert FrameStore("unused.sqlite").max_bytes == 3 * 2**20


def test_video_digest_is_kept_and_follows_the_file(tmp_path):
    video = tmp_path / "v.mp4"
    video.write_bytes(b"first content")
    store = FrameStore(tmp_path / "frames.sqlite")
    first = store.digest(video)
    assert first == content_digest(video)
    # another process (a fresh store object) reads the kept digest
    assert FrameStore(tmp_path / "frames.sqlite").digest(video) == first
    video.write_bytes(b"other content!")
    os.utime(video, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert store.digest(video) != first


def test_an_unreadable_store_is_no_store(tmp_path):
    path = tmp_path / "frames.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    store = FrameStore(path)
    assert store.get_many(["a"]) == {} and store.missing(["a"]) == {"a"}
    store.put_many([("a", b"x", 1, 1)])  # logged, not raised


def _writer(path: str, name: str, count: int) -> None:
    store = FrameStore(path, max_bytes=40_000)
    for i in range(count):
        store.put_many([(f"{name}-{i}", bytes(1000), 1, 1)])
        store.get_many([f"{name}-{i // 2}"])


def test_several_processes_at_once(tmp_path):
    path = str(tmp_path / "frames.sqlite")
    FrameStore(path).stats()
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(path, f"w{n}", 60)) for n in range(3)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(120)
    assert [worker.exitcode for worker in workers] == [0, 0, 0]
    stats = FrameStore(path).stats()
    # 180 KB written under a 40 KB cap: evicted down, and the running total matches the rows
    assert 0 < stats["bytes"] <= 40_000
    rows = FrameStore(path)._db().execute("SELECT COALESCE(SUM(size), 0) FROM blobs").fetchone()[0]
    total = FrameStore(path)._db().execute("SELECT value FROM totals").fetchone()[0]
    assert rows == total == stats["bytes"]
