"""The check of each model endpoint before a run (`vqakit.models.preflight`), against real loopback
servers: a closed port, a server answering 404, a stuck socket, a refused key and a model the
server does not have are each one line naming the endpoint and what it answered, in seconds; a
server that has the model passes without being asked anything the run would have asked."""

from __future__ import annotations

import time

import pytest
from bad_servers import NotFoundServer, SilentServer, closed_port
from fake_server import FakeServer

from vqakit.models import PreflightError, backends, preflight
from vqakit.prompts import render_prompt

backends(), render_prompt("preflight_ping")  # loaded once here: the timings are of the checks alone


def _refusal(spec: str, **kwargs) -> tuple[str, float]:
    started = time.monotonic()
    with pytest.raises(PreflightError) as refused:
        preflight([("--model", spec, None)], **kwargs)
    return str(refused.value), time.monotonic() - started


def test_a_closed_port_is_named_at_once():
    port = closed_port()
    message, took = _refusal(f"openai-compatible:http://127.0.0.1:{port}/v1#m")
    assert took < 2
    assert message.startswith(f"--model openai-compatible:http://127.0.0.1:{port}/v1#m: ")
    assert f"http://127.0.0.1:{port}/v1/models: connection refused" in message
    assert "\n" not in message and "--no-preflight" in message


def test_a_wrong_base_url_is_named_with_its_status_and_body():
    """A server answering 404 for both the model list and a 1-token request (e.g. `/v1` missing)."""
    with NotFoundServer() as server:
        message, took = _refusal(f"openai-compatible:{server.url}#m")
        assert server.paths == ["GET /v1/models", "POST /v1/chat/completions"]
    assert took < 2
    assert f"HTTP 404 from {server.url}/chat/completions: 404 page not found; " in message
    assert "second line" not in message and "/v1" in message


def test_a_stuck_server_is_named_within_the_time_limit():
    with SilentServer() as server:
        message, took = _refusal(f"openai-compatible:{server.url}#m", timeout_s=1)
    assert 0.9 < took < 3
    assert f"{server.url}/models: no answer within 1 s" in message


def test_the_request_time_limit_of_a_spec_bounds_its_check():
    with SilentServer() as server:
        message, took = _refusal(f"openai-compatible:{server.url}#m?timeout=0.5")
    assert took < 2 and "no answer within 0.5 s" in message


def test_a_model_the_server_lacks_is_named_with_what_it_serves():
    with FakeServer() as server:
        server.models = ["Qwen/Qwen2.5-VL-7B-Instruct", "other"]
        message, _ = _refusal(f"openai-compatible:{server.url}#qwen2.5-vl")
        assert preflight([("--model", f"openai-compatible:{server.url}#other", None)]) == []
        assert server.requests == []  # nothing the run asks was spent on the check
    assert (
        f"{server.url}/models does not list 'qwen2.5-vl' (it serves Qwen/Qwen2.5-VL-7B-Instruct, other); "
        in message
    )
    assert f"HTTP 404 from {server.url}/chat/completions: The model `qwen2.5-vl` does not exist." in message


def test_a_name_the_server_takes_though_it_does_not_list_it_passes():
    """Ollama lists `llama3:latest` and takes `llama3`: the 1-token request decides."""
    with FakeServer() as server:
        server.models, server.aliases = ["llama3:latest"], ["llama3"]
        assert preflight([("--model", f"openai-compatible:{server.url}#llama3", None)]) == []
        assert [request["body"]["max_tokens"] for request in server.requests] == [1]


def test_a_refused_key_is_named_and_never_shown(monkeypatch: pytest.MonkeyPatch):
    key = "sk-preflight-secret-1234567890"
    monkeypatch.setenv("VQAKIT_API_KEY", key)
    with FakeServer() as server:
        server.get_status = 401
        message, _ = _refusal(f"openai-compatible:{server.url}#m")
    assert f"HTTP 401 from {server.url}/models: scripted 401; the key was refused" in message
    assert key not in message


def test_a_judge_endpoint_is_checked_and_named_too():
    port = closed_port()
    with FakeServer() as server:
        models = [
            ("--model", f"openai-compatible:{server.url}#m", None),
            ("judge open", f"openai-compatible:http://127.0.0.1:{port}/v1#judge", None),
        ]
        with pytest.raises(
            PreflightError, match=r"^judge open openai-compatible:http://127\.0\.0\.1:\d+/v1#judge"
        ):
            preflight(models)


def test_one_endpoint_used_twice_is_checked_once():
    with FakeServer() as server:
        spec = f"openai-compatible:{server.url}#m"
        assert preflight([("--model", spec, None), ("judge open", spec, None)]) == []
        assert server.gets == ["/v1/models"]


def test_a_server_error_on_the_check_is_a_note_not_a_refusal():
    with FakeServer() as server:
        server.get_status = 503
        notes = preflight([("--model", f"openai-compatible:{server.url}#m", None)])
    assert len(notes) == 1 and "HTTP 503" in notes[0] and "going on" in notes[0]


@pytest.mark.parametrize(
    ("backend", "variable", "key_variable"),
    [
        ("anthropic", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"),
        ("gemini", "GOOGLE_GEMINI_BASE_URL", "GEMINI_API_KEY"),
    ],
)
def test_sdk_backends_ask_for_the_model_record(backend, variable, key_variable, monkeypatch):
    monkeypatch.setenv(key_variable, "test-key")
    with FakeServer() as server:
        monkeypatch.setenv(variable, server.root)
        server.models = ["known-model"]
        assert preflight([("--model", f"{backend}:known-model", None)]) == []
        with pytest.raises(
            PreflightError, match=r"HTTP 404 from .*/models/unknown-model: model 'unknown-model' not found"
        ):
            preflight([("--model", f"{backend}:unknown-model", None)])


def test_local_backends_are_not_contacted(tmp_path):
    replies = tmp_path / "replies.jsonl"
    replies.write_text('{"sample_id": "a", "reply": "A"}\n')
    assert preflight([("--model", f"replay:{replies}", None)]) == []
