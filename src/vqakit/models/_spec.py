"""Model spec strings, parsed in exactly one place.

`backend:model[?settings]`: generation settings follow the model name as a query string
(`openai:o4-mini?reasoning_effort=high&max_tokens=8000`); `str(spec)` writes them back in a
stable order, so the string serves as an id.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vqakit.models._settings import GenerationSettings, parse_settings_query, settings_query

SPEC_FORMS = (
    (
        "openai:<model>",
        "openai:o4-mini?reasoning_effort=high&max_tokens=8000",
        "OpenAI API; key from OPENAI_API_KEY",
    ),
    (
        "openai-compatible:<base_url>#<model>",
        "openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?thinking=false&temperature=0.6",
        "any OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter); "
        "key from VQAKIT_API_KEY if the server needs one",
    ),
    (
        "anthropic:<model>",
        "anthropic:claude-sonnet-4-5?thinking_budget=4000",
        "Anthropic API; key from ANTHROPIC_API_KEY",
    ),
    ("gemini:<model>", "gemini:gemini-2.5-pro", "Gemini API; key from GEMINI_API_KEY or GOOGLE_API_KEY"),
    (
        "hf:<hub id or local folder>",
        "hf:HuggingFaceTB/SmolVLM2-256M-Video-Instruct?max_tokens=256",
        "local transformers vision-language model (pip install 'vqakit[hf]'); loads from the local "
        "cache or folder",
    ),
    ("replay:<file.jsonl>", "replay:runs/recorded.jsonl", 'replays {"sample_id", "reply"} lines'),
    (
        "<any form>?key=value&...",
        "openai:gpt-4o-mini?temperature=0&max_tokens=512&system=Answer%20briefly.",
        "generation settings after the model name: temperature, top_p, max_tokens, seed, system, stop "
        "(may repeat), reasoning_effort, thinking_budget (0 = off), thinking (true/false)",
    ),
)


@dataclass(frozen=True)
class ModelSpec:
    backend: str  # "openai", "openai-compatible", "anthropic", "gemini", "hf", "replay"
    model: str  # model name, or the replay file
    base_url: str | None = None
    settings: GenerationSettings = field(default_factory=GenerationSettings)

    def __str__(self) -> str:
        if self.backend == "openai-compatible":
            text = f"{self.backend}:{self.base_url}#{self.model}"
        else:
            text = f"{self.backend}:{self.model}"
        query = settings_query(self.settings)
        return f"{text}?{query}" if query else text


def parse_model_spec(text: str) -> ModelSpec:
    backend, sep, rest = text.strip().partition(":")
    if not sep or not rest:
        raise ValueError(f"model spec {text!r} needs the form backend:model; known forms: {_forms()}")
    base_url = None
    if backend == "openai-compatible":
        # the base URL may carry its own query (?api-version=...): settings follow the model
        base_url, hash_sign, rest = rest.rpartition("#")
        if not hash_sign or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"model spec {text!r}: use openai-compatible:<http(s) base url>#<model>")
        base_url = base_url.rstrip("/")
    elif backend not in ("openai", "anthropic", "gemini", "replay", "hf"):
        raise ValueError(f"unknown model backend {backend!r} in {text!r}; known forms: {_forms()}")
    model, question, query = rest.partition("?")
    if not model:
        raise ValueError(f"model spec {text!r} names no model; known forms: {_forms()}")
    try:
        settings = parse_settings_query(query) if question else GenerationSettings()
    except ValueError as error:
        raise ValueError(f"model spec {text!r}: {error}") from None
    return ModelSpec(backend, model, base_url, settings)


def _forms() -> str:
    return ", ".join(form for form, _, _ in SPEC_FORMS)
