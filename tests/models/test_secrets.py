"""API keys come from the environment and never reach logs, caches or files written by a run."""

from __future__ import annotations

import logging
import subprocess
import sys

from fake_server import FakeServer

from vqakit.models import Message, Model, ResponseCache

SECRET = "sk-test-Very5ecretValue-0123456789"


def test_key_is_sent_but_never_written(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path / "cache"))
    caplog.set_level(logging.DEBUG)
    log_file = tmp_path / "run.log"
    handler = logging.FileHandler(log_file)
    logging.getLogger().addHandler(handler)
    try:
        with FakeServer() as server:
            server.script.extend(["500", "429:0", "ok"])
            m = Model(f"openai-compatible:{server.url}#fake", cache=ResponseCache())
            assert m.complete_sync([Message.user("hello")]).ok
            failing = Model(f"openai-compatible:{server.url}#fake")
            server.default = "401"
            assert failing.complete_sync([Message.user("again")]).error.type == "auth"
    finally:
        logging.getLogger().removeHandler(handler)
        handler.close()
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    written = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert any(path.suffix == ".sqlite" for path in written)
    for path in written:
        assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in caplog.text


def test_cli_cache_verbs(tmp_path):
    env = {"VQAKIT_CACHE_DIR": str(tmp_path), "PATH": ""}
    cache = ResponseCache(tmp_path / "responses.sqlite")
    from vqakit.models import Completion

    cache.put("k", "openai:m", Completion("x", "openai:m"))
    cache.close()
    stats = subprocess.run(
        [sys.executable, "-m", "vqakit", "cache", "stats"], env=env, capture_output=True, text=True
    )
    assert "1 entries" in stats.stdout and "openai:m" in stats.stdout
    cleared = subprocess.run(
        [sys.executable, "-m", "vqakit", "cache", "clear"], env=env, capture_output=True, text=True
    )
    assert "removed 1 entries" in cleared.stdout
    listing = subprocess.run([sys.executable, "-m", "vqakit", "models"], capture_output=True, text=True)
    assert "openai-compatible:<base_url>#<model>" in listing.stdout and "e.g. replay:" in listing.stdout
