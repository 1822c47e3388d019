"""What each API backend puts on the wire for the generation settings, and what it keeps of the
reply (thinking text, token usage, a cut reply), against the loopback server. `anthropic:` and
`gemini:` go through their official SDKs."""

from __future__ import annotations

import os

import pytest
from fake_server import THOUGHT, FakeServer

from vqakit.models import Message, Model, RetryPolicy

FAST = RetryPolicy(max_attempts=3, base_s=0.01, max_wait_s=0.02)
KEYS = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY", "gemini": "GEMINI_API_KEY"}
MODULES = {"anthropic": "anthropic", "gemini": "google.genai"}
BACKENDS = ["openai", "openai-compatible", "anthropic", "gemini"]


@pytest.fixture(autouse=True)
def keys(monkeypatch):
    for name in KEYS.values():
        monkeypatch.setenv(name, "test-key-not-secret")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://unused.invalid/v1")  # set per server by `make`


def make(backend: str, server: FakeServer, settings: str = "", **kwargs) -> Model:
    if backend in MODULES:
        pytest.importorskip(MODULES[backend])
    query = f"?{settings}" if settings else ""
    if backend == "openai-compatible":
        return Model(f"openai-compatible:{server.url}#local-model{query}", retry=FAST, cache=False, **kwargs)
    if backend == "openai":
        os.environ["OPENAI_BASE_URL"] = server.url  # restored by the `keys` fixture
        return Model(f"openai:test-model{query}", retry=FAST, cache=False, **kwargs)
    options = {"base_url": server.root}
    return Model(f"{backend}:test-model{query}", retry=FAST, cache=False, backend_options=options, **kwargs)


def sent(backend: str, settings: str = "", **call) -> dict:
    with FakeServer() as server:
        completion = make(backend, server, settings).complete_sync([Message.user("q")], **call)
    assert completion.ok, completion.error
    return server.requests[0]["body"]


def test_openai_reasoning_model():
    body = sent("openai", "reasoning_effort=high&max_tokens=8000")
    assert body["max_completion_tokens"] == 8000 and body["reasoning_effort"] == "high"
    assert "max_tokens" not in body and "temperature" not in body and "top_p" not in body


def test_openai_defaults_and_explicit_sampling():
    body = sent("openai")
    assert body["temperature"] == 0.0 and "max_completion_tokens" not in body and "max_tokens" not in body
    body = sent("openai", "reasoning_effort=low&temperature=1&top_p=0.9&seed=4&stop=END")
    assert (body["temperature"], body["top_p"], body["seed"], body["stop"]) == (1.0, 0.9, 4, ["END"])


def test_openai_compatible_thinking_switch():
    body = sent("openai-compatible", "thinking=false&temperature=0.6&max_tokens=300")
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert (body["temperature"], body["max_tokens"]) == (0.6, 300) and "max_completion_tokens" not in body
    body = sent("openai-compatible", "thinking_budget=2000&reasoning_effort=medium&system=Think.")
    assert body["chat_template_kwargs"] == {"enable_thinking": True, "thinking_budget": 2000}
    assert body["reasoning_effort"] == "medium" and "temperature" not in body
    assert body["messages"][0] == {"role": "system", "content": "Think."}
    assert "chat_template_kwargs" not in sent("openai-compatible")


def test_anthropic_settings():
    body = sent("anthropic", "thinking_budget=4000&temperature=0.5&stop=END&system=Be%20brief.")
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 4000}
    assert body["max_tokens"] == 4000 + 4096  # required by the API: budget + 4096 when unset
    assert "temperature" not in body and body["stop_sequences"] == ["END"] and body["system"] == "Be brief."
    body = sent("anthropic")
    assert body["max_tokens"] == 4096 and "thinking" not in body
    body = sent("anthropic", "thinking=false&max_tokens=50&reasoning_effort=low")
    assert body["thinking"] == {"type": "disabled"} and body["max_tokens"] == 50
    assert body["output_config"] == {"effort": "low"}
    assert sent("anthropic", "thinking=true")["thinking"] == {"type": "enabled", "budget_tokens": 4096}


def camel(config: dict) -> dict:
    """Field names as the Gemini API documents them (the SDK may send either spelling; the API
    reads both, as protobuf JSON does)."""
    return {"".join(w.title() if i else w for i, w in enumerate(k.split("_"))): v for k, v in config.items()}


def test_gemini_settings():
    body = sent("gemini", "thinking_budget=1024&max_tokens=3000&stop=END&temperature=0.2&system=Short.")
    config = body["generationConfig"]
    assert config["maxOutputTokens"] == 3000 and config["stopSequences"] == ["END"]
    assert config["temperature"] == 0.2
    assert camel(config["thinkingConfig"]) == {"thinkingBudget": 1024, "includeThoughts": True}
    assert body["systemInstruction"]["parts"][0]["text"] == "Short."
    assert camel(sent("gemini", "thinking=false")["generationConfig"]["thinkingConfig"]) == {
        "thinkingBudget": 0
    }
    effort = sent("gemini", "reasoning_effort=low")["generationConfig"]
    assert camel(effort["thinkingConfig"]) == {"thinkingLevel": "LOW", "includeThoughts": True}
    assert "temperature" not in effort
    plain = sent("gemini")["generationConfig"]
    assert plain == {"temperature": 0.0}


@pytest.mark.parametrize("backend", BACKENDS)
def test_thinking_text_and_usage_are_kept(backend):
    with FakeServer(default="think:B") as server:
        completion = make(backend, server).complete_sync([Message.user("q")])
    assert completion.ok and completion.text == "B" and completion.reasoning == THOUGHT
    assert completion.usage.input_tokens == 11 and completion.usage.reasoning_tokens == 5
    assert completion.usage.output_tokens == 8  # thinking included
    assert completion.latency_s > 0 and completion.attempts == 1 and not completion.cached


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reply_cut_at_the_limit_is_truncated_not_retried_nor_sent_on(backend):
    with FakeServer(default="length:The answer is") as primary, FakeServer() as backup:
        fallback = Model(f"openai-compatible:{backup.url}#other", retry=FAST, cache=False)
        completion = make(backend, primary, "max_tokens=3", fallback=fallback).complete_sync(
            [Message.user("q")]
        )
    assert completion.error.type == "truncated" and "max_tokens=3" in completion.error.message
    assert completion.text == "The answer is" and completion.attempts == 1
    assert len(primary.requests) == 1 and backup.requests == []


def test_think_tags_in_content_become_reasoning():
    with FakeServer(default="ok:<think>\nIt is red.\n</think>\n\nB") as server:
        completion = make("openai-compatible", server).complete_sync([Message.user("q")])
    assert completion.text == "B" and completion.reasoning == "It is red."


def test_a_reply_cut_while_thinking_keeps_the_thinking():
    with FakeServer(default="length:<think>First the red cup, then") as server:
        completion = make("openai-compatible", server, "max_tokens=10").complete_sync([Message.user("q")])
    assert completion.error.type == "truncated" and completion.attempts == 1
    assert completion.text == "" and completion.reasoning == "First the red cup, then"
