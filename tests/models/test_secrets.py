"""API keys come from the environment and never reach logs, caches or files written by a run."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from fake_server import FakeServer

from vqakit.models import Message, Model, ResponseCache, RetryPolicy, redact_secrets

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


ECHOING = {
    # backend: (key variable, spec, SDK module)
    "openai-compatible": ("VQAKIT_API_KEY", None, None),
    "openai": ("OPENAI_API_KEY", "openai:gpt-test", None),
    "anthropic": ("ANTHROPIC_API_KEY", "anthropic:claude-test", "anthropic"),
    "gemini": ("GEMINI_API_KEY", "gemini:gemini-test", "google.genai"),
}


@pytest.mark.parametrize("backend", sorted(ECHOING))
@pytest.mark.parametrize("status", ["401", "500"])
def test_a_key_echoed_in_an_error_body_is_redacted(backend, status, monkeypatch, caplog):
    variable, spec, module = ECHOING[backend]
    if module:
        pytest.importorskip(module)
    monkeypatch.setenv(variable, SECRET)
    caplog.set_level(logging.DEBUG)
    with FakeServer(default=f"echo-key:{status}") as server:
        fast = RetryPolicy(max_attempts=2, base_s=0.01, max_wait_s=0.02)
        if spec is None:
            m = Model(f"openai-compatible:{server.url}#fake", cache=False, retry=fast)
        elif backend == "openai":
            monkeypatch.setenv("OPENAI_BASE_URL", server.url)
            m = Model(spec, cache=False, retry=fast)
        else:
            m = Model(spec, cache=False, retry=fast, backend_options={"base_url": server.root})
        completion = m.complete_sync([Message.user("hello")])
    assert completion.error is not None and "invalid credentials" in completion.error.message
    assert SECRET not in completion.error.message and "[redacted]" in completion.error.message
    assert SECRET not in caplog.text


@pytest.mark.parametrize(
    "text",
    [
        "Incorrect API key provided: sk-proj-AbC123dEf456GhI789jKl",
        "header Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc-DEF_ghi",
        'request had {"x-api-key": "ant-1234567890abcdef"}',
        "x-goog-api-key: AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "GET /v1beta/models/m:generateContent?key=AIzaSyA-1234567890abcdefghijklmnopqrstu",
        "token hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345 is invalid",
    ],
)
def test_common_key_shapes_are_redacted(text):
    redacted = redact_secrets(text)
    assert "[redacted]" in redacted
    assert not any(part in redacted for part in ("AbC123", "eyJhbG", "1234567890", "AbCdEf"))


def test_key_values_from_the_environment_are_redacted(monkeypatch):
    monkeypatch.setenv("HF_TOKEN", "plain-looking-value-42")
    monkeypatch.setenv("GOOGLE_API_KEY", "x")  # too short to hunt for: left alone
    assert redact_secrets("sent plain-looking-value-42 to x") == "sent [redacted] to x"
    assert redact_secrets("max_tokens: 5 must be below 3") == "max_tokens: 5 must be below 3"


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
