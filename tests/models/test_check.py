"""`check_model_spec`: a spec that cannot work is refused in seconds, with a one-line reason,
before a run starts (no weights loaded, no retry loop against an unreachable hub)."""

from __future__ import annotations

import socket
import time

import pytest

from vqakit.models import Message, Model, check_model_spec

API_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "VQAKIT_API_KEY")


@pytest.fixture
def no_keys(monkeypatch):
    for name in API_KEYS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def unreachable_hub(monkeypatch, tmp_path):
    """Online mode, but the hub endpoint is a loopback port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))


def refused(text: str, match: str) -> None:
    started = time.monotonic()
    with pytest.raises(ValueError, match=match) as caught:
        check_model_spec(text)
    assert time.monotonic() - started < 5
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("gpt-4o", "needs the form backend:model"),
        ("mystery:model", "unknown model backend 'mystery'"),
        ("openai-compatible:localhost:8000#m", "openai-compatible:<http"),
        ("openai-compatible:http://localhost:8000/v1#m?temprature=0", "unknown setting 'temprature'"),
        ("openai:gpt-4o-mini", "set OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-5", "set ANTHROPIC_API_KEY"),
        ("gemini:gemini-2.5-pro", r"set GEMINI_API_KEY \(or GOOGLE_API_KEY\)"),
        ("replay:/no/such/file.jsonl", "replay: file /no/such/file.jsonl not found"),
        ("hf:/no/such/folder", "hf: local folder /no/such/folder not found"),
        ("hf:./relative/folder", "hf: local folder ./relative/folder not found"),
    ],
)
def test_refused(text, match, no_keys):
    refused(text, match)


def test_a_folder_without_a_model_is_refused(tmp_path):
    refused(f"hf:{tmp_path}", "is not a model folder")


def test_accepted(tmp_path, monkeypatch, no_keys):
    recorded = tmp_path / "r.jsonl"
    recorded.write_text('{"sample_id": "a", "reply": "B"}\n')
    check_model_spec(f"replay:{recorded}")
    check_model_spec("openai-compatible:http://localhost:8000/v1#m?thinking=false")  # key optional
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key-not-secret")
    check_model_spec("gemini:gemini-2.5-flash?thinking_budget=0")
    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-secret")
    check_model_spec("openai:o4-mini?reasoning_effort=high&max_tokens=8000")
    refused("openai:o4-mini?thinking=true", "cannot send thinking")


def test_hf_hub_model_offline_and_not_cached_fails_in_seconds(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    refused("hf:nonexistent/model", "not in the local model cache and HF_HUB_OFFLINE=1")


def test_hf_hub_model_with_no_hub_reachable_fails_in_seconds(unreachable_hub):
    refused("hf:nonexistent/model", "not in the local model cache and the model hub is not reachable")


@pytest.mark.parametrize("offline", [True, False])
def test_model_itself_fails_fast_without_a_hub(offline, unreachable_hub, monkeypatch):
    if offline:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    with pytest.raises(ValueError, match="hf: nonexistent/model is not in the local model cache"):
        Model("hf:nonexistent/model")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("offline", [True, False])
def test_hf_model_in_the_local_cache_loads_without_a_hub(offline, unreachable_hub, monkeypatch, tmp_path):
    pytest.importorskip("transformers")
    from tiny_models import build_tiny_qwen25_vl

    cache = tmp_path / "hub"
    repo = cache / "models--tiny-org--tiny-qwen"
    build_tiny_qwen25_vl(repo / "snapshots" / ("0" * 40))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text("0" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    if offline:
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    check_model_spec("hf:tiny-org/tiny-qwen?max_tokens=2")
    completion = Model("hf:tiny-org/tiny-qwen?max_tokens=2", cache=False).complete_sync([Message.user("hi")])
    assert completion.usage.output_tokens > 0
