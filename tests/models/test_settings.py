"""Generation settings: given in the spec, by `Model(settings=...)` or per call; checked early."""

from __future__ import annotations

import pytest
from fake_server import FakeServer

from vqakit.models import GenerationSettings, Message, Model, RetryPolicy, parse_model_spec

FAST = RetryPolicy(max_attempts=2, base_s=0.01, max_wait_s=0.02)


@pytest.mark.parametrize(
    ("text", "model", "settings"),
    [
        (
            "openai:o4-mini?reasoning_effort=high&max_tokens=8000",
            "o4-mini",
            {"reasoning_effort": "high", "max_tokens": 8000},
        ),
        (
            "openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?thinking=false&temperature=0.6",
            "Qwen/Qwen3-8B",
            {"thinking": False, "temperature": 0.6},
        ),
        ("anthropic:claude-sonnet-4-5?thinking_budget=4000", "claude-sonnet-4-5", {"thinking_budget": 4000}),
        (
            "gemini:gemini-2.5-flash?stop=%0A&stop=END&seed=7",
            "gemini-2.5-flash",
            {"stop": ("\n", "END"), "seed": 7},
        ),
        ("hf:org/model?system=Answer%20with%20a%20letter.", "org/model", {"system": "Answer with a letter."}),
        ("openai:gpt-4o-mini", "gpt-4o-mini", {}),
    ],
)
def test_spec_carries_settings(text, model, settings):
    spec = parse_model_spec(text)
    assert spec.model == model
    assert spec.settings == GenerationSettings(**settings)
    assert parse_model_spec(str(spec)) == spec  # canonical text round-trips


def test_canonical_text_is_stable():
    one = parse_model_spec("openai:m?max_tokens=50&temperature=0&reasoning_effort=low")
    two = parse_model_spec("openai:m?reasoning_effort=low&temperature=0.0&max_tokens=50")
    assert str(one) == str(two) == "openai:m?temperature=0.0&max_tokens=50&reasoning_effort=low"


def test_a_base_url_keeps_its_own_query():
    spec = parse_model_spec("openai-compatible:https://x.example/v1?api-version=2024#gpt?top_p=0.5")
    assert spec.base_url == "https://x.example/v1?api-version=2024" and spec.model == "gpt"
    assert spec.settings.top_p == 0.5


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("openai:m?temprature=0", "temprature"),
        ("openai:m?temperature=hot", "temperature"),
        ("openai:m?max_tokens=0", "max_tokens"),
        ("openai:m?reasoning_effort=ultra", "reasoning_effort"),
        ("openai:m?thinking=maybe", "thinking"),
        ("openai:m?seed=1&seed=2", "seed"),
        ("openai-compatible:http://h/v1#m?thinking=false&thinking_budget=100", "thinking"),
        ("openai:m?nonsense", "key=value"),
    ],
)
def test_bad_settings_are_named(text, named):
    with pytest.raises(ValueError, match=named):
        parse_model_spec(text)


def test_values_given_as_text_are_read():
    settings = GenerationSettings.model_validate({"temperature": "0.6", "thinking": "false", "stop": "END"})
    assert (settings.temperature, settings.thinking, settings.stop) == (0.6, False, ("END",))


def test_defaults():
    assert GenerationSettings().with_defaults().temperature == 0.0
    assert GenerationSettings().with_defaults().max_tokens is None  # no cap of vqakit's own
    for reasoning in ({"reasoning_effort": "high"}, {"thinking": True}, {"thinking_budget": 100}):
        assert GenerationSettings(**reasoning).with_defaults().temperature is None
    assert GenerationSettings(thinking=False).with_defaults().temperature == 0.0
    assert GenerationSettings(reasoning_effort="high", temperature=1).with_defaults().temperature == 1.0


def test_explicit_settings_win_over_the_spec_and_calls_over_both():
    with FakeServer() as server:
        m = Model(
            f"openai-compatible:{server.url}#m?temperature=0.6&max_tokens=100&seed=3",
            settings={"max_tokens": 200, "system": "Be brief."},
            cache=False,
            retry=FAST,
        )
        assert (
            str(m)
            == f"openai-compatible:{server.url}#m?temperature=0.6&max_tokens=200&seed=3&system=Be%20brief."
        )
        assert m.settings.max_tokens == 200 and m.settings.temperature == 0.6
        m.complete_sync([Message.user("q")])
        m.complete_sync([Message.user("q")], max_tokens=8, temperature=None)
    first, second = (request["body"] for request in server.requests)
    assert (first["temperature"], first["max_tokens"], first["seed"]) == (0.6, 200, 3)
    assert first["messages"][0] == {"role": "system", "content": "Be brief."}
    assert (second["temperature"], second["max_tokens"], second["seed"]) == (0.0, 8, 3)


def test_bad_keys_raise_at_model_and_call(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-real-key-000000")
    with pytest.raises(ValueError, match="unknown setting 'max_output_tokens'"):
        Model("openai:m", settings={"max_output_tokens": 5})
    with pytest.raises(ValueError, match="cannot send thinking"):
        Model("openai:o4-mini?thinking_budget=2000")  # OpenAI takes reasoning_effort instead
    with FakeServer() as server:
        m = Model(f"openai-compatible:{server.url}#m", cache=False)
        with pytest.raises(ValueError, match="unknown setting 'maxtokens'"):
            m.complete_sync([Message.user("q")], maxtokens=8)
    assert server.requests == []


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("anthropic:claude?seed=1", "seed"),
        ("anthropic:claude?reasoning_effort=minimal", "reasoning_effort"),
        ("gemini:gemini-2.5-pro?reasoning_effort=max", "reasoning_effort"),
    ],
)
def test_settings_a_backend_cannot_send(spec, problem, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-secret")
    monkeypatch.setenv("GEMINI_API_KEY", "test-key-not-secret")
    with pytest.raises(ValueError, match=f"cannot send {problem}"):
        Model(spec)


def test_replay_ignores_settings(tmp_path):
    recorded = tmp_path / "r.jsonl"
    recorded.write_text('{"sample_id": "a", "reply": "B"}\n')
    m = Model(f"replay:{recorded}?max_tokens=1&reasoning_effort=high")
    assert m.complete_sync([Message.user("q")], sample_id="a").text == "B"
