"""API keys come from the environment and never reach logs, caches or files written by a run."""

from __future__ import annotations

import base64
import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.models import (
    Completion,
    Message,
    Model,
    ResponseCache,
    RetryPolicy,
    redact_secrets,
    remember_secret,
)
from vqakit.video import write_index_clip

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


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    """One multiple-choice and one open-ended question on a tiny clip."""
    root = tmp_path_factory.mktemp("echobench")
    write_index_clip(root / "media/clip.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "echo", "version": "1", "license": "CC0-1.0", "description": "Echoed keys."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = [
        {"id": "mcq", "videos": [{"path": "media/clip.mp4"}], "question": "What is shown?",
         "choices": ["a clip", "a photo"], "answer": 0},
        {"id": "open", "videos": [{"path": "media/clip.mp4"}], "question": "What is drawn?",
         "answer": "a number"},
    ]  # fmt: skip
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return root


def test_a_key_echoed_in_a_reply_is_stored_nowhere(bench, tmp_path, monkeypatch):
    """A server that puts the key in a 200 reply's text and thinking: predictions, judgments,
    scores, the report and its pages, the response cache and the log hold `[redacted]` instead."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(cache))
    monkeypatch.setenv("VQAKIT_API_KEY", SECRET)
    log_file = tmp_path / "run.log"
    handler = logging.FileHandler(log_file)
    root = logging.getLogger()
    root.addHandler(handler)
    level, root.level = root.level, logging.DEBUG
    answer = f"ok:<think>The server key is {SECRET}.</think>The answer is A (key {SECRET})."
    verdict = f"ok:yes - my key is {SECRET}"
    try:
        with FakeServer(default=answer, by_text={"Reference answer:": verdict}) as server:
            spec = f"openai-compatible:{server.url}#m"
            args = ["eval", str(bench), "--model", spec, "--judge", f"open={spec}", "--out"]
            result = CliRunner().invoke(main, [*args, str(tmp_path / "run")])
            again = CliRunner().invoke(main, [*args, str(tmp_path / "rerun")])  # from the cache
    finally:
        root.removeHandler(handler)
        root.level = level
        handler.close()
    assert result.exit_code == 0, result.output
    assert again.exit_code == 0, again.output
    assert server.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert len(server.requests) == 3  # two answers, one verdict; the rerun was served from the cache
    run = tmp_path / "run"
    predictions = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert all("[redacted]" in p["reply"] for p in predictions)
    assert "[redacted]" in (run / "judgments.jsonl").read_text()
    assert any(path.suffix == ".sqlite" for path in cache.rglob("*"))
    assert (run / "report.html").is_file() and any((run / "samples").glob("*.html"))
    for folder in (run, tmp_path / "rerun", cache):
        for path in folder.rglob("*"):
            if path.is_file():
                assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in log_file.read_text() and SECRET not in result.output


def test_every_way_a_key_is_known_is_redacted_from_replies(monkeypatch):
    monkeypatch.setattr("vqakit.models._secrets._remembered", set())
    monkeypatch.setenv("OPENAI_API_KEY", "openai-value-1234")
    monkeypatch.setenv("VQAKIT_API_BASIC_AUTH", "me:basic-password-99")
    remember_secret("given-another-way-5678")
    encoded = base64.b64encode(b"me:basic-password-99").decode()
    text = f"openai-value-1234 basic-password-99 {encoded} given-another-way-5678"
    completion = Completion(text, "m", reasoning=text)
    assert completion.text == completion.reasoning == " ".join(["[redacted]"] * 4)
    kept = Completion('{"key": "A", "token": 3}', "m")  # a reply's own words are not key shapes
    assert kept.text == '{"key": "A", "token": 3}'


def test_basic_auth_for_a_server_behind_it(monkeypatch):
    monkeypatch.delenv("VQAKIT_API_KEY", raising=False)
    monkeypatch.setenv("VQAKIT_API_BASIC_AUTH", "me:basic-password-99")
    with FakeServer(default="echo-key:401") as server:
        model = Model(f"openai-compatible:{server.url}#m", cache=False)
        completion = model.complete_sync([Message.user("hello")])
        model.close()
    sent = server.requests[0]["headers"]["Authorization"]
    assert sent == "Basic " + base64.b64encode(b"me:basic-password-99").decode()
    assert completion.error is not None and "invalid credentials" in completion.error.message
    assert "basic-password-99" not in completion.error.message and sent[6:] not in completion.error.message
