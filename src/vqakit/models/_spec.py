"""Model spec strings, parsed in exactly one place."""

from __future__ import annotations

from dataclasses import dataclass

SPEC_FORMS = (
    ("openai:<model>", "openai:gpt-4o-mini", "OpenAI API; key from OPENAI_API_KEY"),
    (
        "openai-compatible:<base_url>#<model>",
        "openai-compatible:http://localhost:8000/v1#Qwen/Qwen2.5-VL-7B-Instruct",
        "any OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp, LM Studio, OpenRouter); "
        "key from VQAKIT_API_KEY if the server needs one",
    ),
    ("anthropic:<model>", "anthropic:claude-sonnet-4-5", "Anthropic API; key from ANTHROPIC_API_KEY"),
    ("gemini:<model>", "gemini:gemini-2.5-pro", "Gemini API; key from GEMINI_API_KEY or GOOGLE_API_KEY"),
    (
        "hf:<hub id or local folder>",
        "hf:HuggingFaceTB/SmolVLM2-256M-Video-Instruct",
        "local transformers vision-language model (pip install 'vqakit[hf]'); loads from the local "
        "cache or folder",
    ),
    ("replay:<file.jsonl>", "replay:runs/recorded.jsonl", 'replays {"sample_id", "reply"} lines'),
)


@dataclass(frozen=True)
class ModelSpec:
    backend: str  # "openai", "openai-compatible", "anthropic", "gemini", "hf", "replay"
    model: str  # model name, or the replay file
    base_url: str | None = None

    def __str__(self) -> str:
        if self.backend == "openai-compatible":
            return f"{self.backend}:{self.base_url}#{self.model}"
        return f"{self.backend}:{self.model}"


def parse_model_spec(text: str) -> ModelSpec:
    backend, sep, rest = text.strip().partition(":")
    if not sep or not rest:
        raise ValueError(f"model spec {text!r} needs the form backend:model; known forms: {_forms()}")
    if backend == "openai-compatible":
        base_url, hash_sign, model = rest.rpartition("#")
        if not hash_sign or not base_url.startswith(("http://", "https://")) or not model:
            raise ValueError(f"model spec {text!r}: use openai-compatible:<http(s) base url>#<model>")
        return ModelSpec(backend, model, base_url.rstrip("/"))
    if backend in ("openai", "anthropic", "gemini", "replay", "hf"):
        return ModelSpec(backend, rest)
    raise ValueError(f"unknown model backend {backend!r} in {text!r}; known forms: {_forms()}")


def _forms() -> str:
    return ", ".join(form for form, _, _ in SPEC_FORMS)
