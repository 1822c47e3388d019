"""Response cache: hits, misses on any pixel change, several processes writing at once."""

from __future__ import annotations

import multiprocessing
import sqlite3

import numpy as np
from fake_server import FakeServer

from vqakit.models import Completion, Image, Message, Model, ResponseCache, cache_key


def test_hit_on_repeat_and_miss_on_pixel_change(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    picture = np.zeros((32, 32, 3), np.uint8)
    with FakeServer() as server:
        m = Model(f"openai-compatible:{server.url}#fake", cache=cache)
        first = m.complete_sync([Message.user(Image(picture), "what?")])
        again = m.complete_sync([Message.user(Image(picture.copy()), "what?")])
        changed = picture.copy()
        changed[5, 7, 1] = 1
        other = m.complete_sync([Message.user(Image(changed), "what?")])
        sampled = m.complete_sync([Message.user(Image(picture), "what?")], temperature=0.7)
    assert not first.cached and again.cached and again.text == first.text
    assert not other.cached and other.text != first.text
    assert not sampled.cached  # non-deterministic requests are not served from the cache
    assert len(server.requests) == 3
    assert cache.stats()["entries"] == 2


def test_failures_are_not_cached(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeServer(default="400") as server:
        m = Model(f"openai-compatible:{server.url}#fake", cache=cache)
        assert not m.complete_sync([Message.user("x")]).ok
        assert not m.complete_sync([Message.user("x")]).ok
    assert len(server.requests) == 2 and cache.stats()["entries"] == 0


def test_key_depends_on_what_changes_the_reply():
    message = [Message.user("q")]
    base = cache_key("openai:a", {"temperature": 0}, message)
    assert base == cache_key("openai:a", {"temperature": 0}, [Message.user("q")])
    assert base != cache_key("openai:b", {"temperature": 0}, message)
    assert base != cache_key("openai:a", {"temperature": 0, "max_tokens": 5}, message)
    assert base != cache_key("openai:a", {"temperature": 0}, [Message.user("q ")])
    assert base != cache_key("openai:a", {"temperature": 0}, [Message.of("system", "q")])


def test_settings_are_part_of_the_key(tmp_path):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeServer() as server:
        url = f"openai-compatible:{server.url}#fake"
        plain = Model(url, cache=cache)
        asked = [
            plain.complete_sync([Message.user("q")]),
            plain.complete_sync([Message.user("q")], reasoning_effort="low", temperature=0),
            plain.complete_sync([Message.user("q")], reasoning_effort="high", temperature=0),
            plain.complete_sync([Message.user("q")], system="Answer with a letter."),
            Model(f"{url}?system=Answer%20in%20French.", cache=cache).complete_sync([Message.user("q")]),
            plain.complete_sync([Message.user("q")], max_tokens=20),
        ]
        assert not any(c.cached for c in asked) and len(server.requests) == len(asked)
        # the same settings, given in the spec or per call, are the same request
        again = Model(f"{url}?max_tokens=20", cache=cache).complete_sync([Message.user("q")])
        effort = plain.complete_sync([Message.user("q")], reasoning_effort="high", temperature=0)
    assert again.cached and again.text == asked[-1].text
    assert effort.cached and effort.text == asked[2].text
    assert len(server.requests) == len(asked)
    assert cache.stats()["entries"] == len(asked)


def test_key_function_separates_effort_and_system():
    message = [Message.user("q")]
    low = cache_key("openai:a", {"temperature": 0, "reasoning_effort": "low"}, message)
    high = cache_key("openai:a", {"temperature": 0, "reasoning_effort": "high"}, message)
    system = cache_key("openai:a", {"temperature": 0, "reasoning_effort": "low", "system": "x"}, message)
    assert len({low, high, system}) == 3


def _writer(path: str, worker: int, count: int) -> None:
    cache = ResponseCache(path)
    for i in range(count):
        cache.put(f"{worker}-{i}", "spec", Completion(text=f"{worker}:{i}", model="spec"))
        assert cache.get(f"{worker}-{i}").text == f"{worker}:{i}"


def test_four_processes_write_concurrently(tmp_path):
    path = str(tmp_path / "shared.sqlite")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_writer, args=(path, w, 150)) for w in range(4)]
    for process in workers:
        process.start()
    for process in workers:
        process.join(60)
        assert process.exitcode == 0
    cache = ResponseCache(path)
    assert cache.stats()["entries"] == 600
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert cache.clear() == 600 and cache.stats()["entries"] == 0


def test_named_frames_are_keyed_by_identity_and_fetched_only_when_sent(tmp_path):
    """Frames named by identity (video digest, frame numbers, resize, encoding): the key is the
    identity, so a cached reply fetches no frame; a miss fetches them once."""
    from vqakit.models import EncodedImage, Frames, sent_jpeg

    fetched = []
    image = sent_jpeg(np.full((24, 32, 3), 90, np.uint8), 768)

    async def fetch() -> tuple:
        fetched.append(1)
        return (image, image)

    def named(identity: str = "video-abc:frames-1-2") -> Frames:
        return Frames((), (0.0, 1.0), identity=identity, fetch=fetch)

    assert cache_key("s", {}, [Message.user(named(), "q")]) == cache_key(
        "s", {}, [Message.user(named(), "q")]
    )
    assert cache_key("s", {}, [Message.user(named(), "q")]) != cache_key(
        "s", {}, [Message.user(named("x"), "q")]
    )
    cache = ResponseCache(tmp_path / "cache.sqlite")
    with FakeServer() as server:
        m = Model(f"openai-compatible:{server.url}#fake", cache=cache)
        first = m.complete_sync([Message.user(named(), "what?")])
        again = m.complete_sync([Message.user(named(), "what?")])
    assert first.ok and again.cached and fetched == [1]
    urls = [
        p["image_url"]["url"]
        for p in server.requests[0]["body"]["messages"][0]["content"]
        if "image_url" in p
    ]
    assert len(urls) == 2 and isinstance(image, EncodedImage)
    assert all(url.endswith(__import__("base64").b64encode(image.data).decode()) for url in urls)


def test_a_batching_scope_writes_replies_in_batches_and_all_at_its_end(tmp_path):
    """Inside `batched()` a reply waits for its batch (one commit for many) but is served at
    once by the same cache; the scope's end writes what waits, so nothing is lost."""
    from vqakit.models import _cache

    path = tmp_path / "cache.sqlite"
    cache, other = ResponseCache(path), ResponseCache(path)
    with cache.batched():
        for i in range(10):
            cache.put(f"k{i}", "spec", Completion(text=f"reply {i}", model="spec"))
        assert cache.get("k3").text == "reply 3" and cache.get("k3").cached
        assert other.get("k3") is None  # not written yet: it waits for its batch
        for i in range(10, _cache._BATCH_ENTRIES):
            cache.put(f"k{i}", "spec", Completion(text=f"reply {i}", model="spec"))
        assert other.get("k3").text == "reply 3"  # a full batch is written at once
        cache.put("late", "spec", Completion(text="late", model="spec"))
        assert other.get("late") is None
    assert other.get("late").text == "late"
    assert other.stats()["entries"] == _cache._BATCH_ENTRIES + 1
    cache.put("unbatched", "spec", Completion(text="now", model="spec"))
    assert other.get("unbatched").text == "now"  # outside a scope each reply is written at once
