from __future__ import annotations

import pytest

from vqakit.models import ModelSpec, parse_model_spec


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("openai:gpt-4o-mini", ModelSpec("openai", "gpt-4o-mini")),
        (
            "openai-compatible:http://localhost:8000/v1#Qwen/Qwen2.5-VL-7B-Instruct",
            ModelSpec("openai-compatible", "Qwen/Qwen2.5-VL-7B-Instruct", "http://localhost:8000/v1"),
        ),
        (
            "openai-compatible:https://openrouter.ai/api/v1/#google/gemini-2.5-pro",
            ModelSpec("openai-compatible", "google/gemini-2.5-pro", "https://openrouter.ai/api/v1"),
        ),
        ("replay:runs/a#b.jsonl", ModelSpec("replay", "runs/a#b.jsonl")),
    ],
)
def test_parse(text, spec):
    assert parse_model_spec(text) == spec
    assert str(parse_model_spec(str(spec))) == str(spec)


@pytest.mark.parametrize(
    "text",
    [
        "gpt-4o",
        "openai:",
        "openai-compatible:localhost:8000#m",
        "openai-compatible:http://x/v1",
        "mystery:model",
    ],
)
def test_reject(text):
    with pytest.raises(ValueError, match=r"model spec|unknown model backend"):
        parse_model_spec(text)
