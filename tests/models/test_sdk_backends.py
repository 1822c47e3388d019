"""`anthropic:` and `gemini:` backends (official SDKs) against the loopback server, which
speaks each provider's wire format."""

from __future__ import annotations

import numpy as np
import pytest
from fake_server import FakeServer

from vqakit.models import Frames, Image, Message, Model, RetryPolicy

FAST = RetryPolicy(max_attempts=4, base_s=0.01, max_wait_s=0.05)
PROVIDERS = {
    "anthropic": ("anthropic", "ANTHROPIC_API_KEY", "claude-test"),
    "gemini": ("google.genai", "GEMINI_API_KEY", "gemini-test"),
}


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request, monkeypatch):
    module, key_name, model_name = PROVIDERS[request.param]
    pytest.importorskip(module)
    monkeypatch.setenv(key_name, "test-key-not-secret")
    return request.param, model_name


def make(provider, server: FakeServer, **kwargs) -> Model:
    name, model_name = provider
    return Model(
        f"{name}:{model_name}", retry=FAST, cache=False, backend_options={"base_url": server.root}, **kwargs
    )


def test_text_images_and_system(provider):
    frames = Frames((np.zeros((20, 30, 3), np.uint8), np.ones((20, 30, 3), np.uint8)), (0.0, 61.0))
    with FakeServer() as server:
        completion = make(provider, server).complete_sync(
            [
                Message.system("Be brief."),
                Message.user(Image(np.zeros((40, 40, 3), np.uint8)), frames, "what?"),
            ]
        )
    assert completion.ok, completion.error
    assert completion.text == "reply 1" and completion.usage.input_tokens == 11
    body = server.requests[0]["body"]
    if provider[0] == "anthropic":
        assert body["system"] == "Be brief." and server.requests[0]["path"] == "/v1/messages"
        kinds = [block["type"] for block in body["messages"][0]["content"]]
        assert kinds == ["image", "text", "image", "text", "image", "text"]
        assert body["messages"][0]["content"][3]["text"] == "[01:01]"
    else:
        assert ":generateContent" in server.requests[0]["path"]
        assert body["systemInstruction"]["parts"][0]["text"] == "Be brief."
        parts = body["contents"][0]["parts"]
        assert sum("inlineData" in part for part in parts) == 3


@pytest.mark.parametrize("failures", [["429"], ["500", "503"]])
def test_retries(provider, failures):
    with FakeServer() as server:
        server.script.extend(failures)
        completion = make(provider, server).complete_sync([Message.user("hi")])
    assert completion.ok and completion.attempts == len(failures) + 1


def test_refusal_goes_to_fallback(provider):
    with FakeServer(default="refuse") as primary, FakeServer(default="ok:fallback says B") as backup:
        fallback = Model(f"openai-compatible:{backup.url}#local", retry=FAST, cache=False)
        completion = make(provider, primary, fallback=fallback).complete_sync([Message.user("hi")])
    assert completion.text == "fallback says B"


def test_missing_key_is_a_clear_error(provider, monkeypatch):
    monkeypatch.delenv(PROVIDERS[provider[0]][1])
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    with pytest.raises(ValueError, match=r"set .*API_KEY"):
        Model(f"{provider[0]}:{provider[1]}")
