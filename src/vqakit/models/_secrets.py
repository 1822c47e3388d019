"""API keys: read from the environment only, and kept out of every text vqakit stores."""

from __future__ import annotations

import os
import re

# every variable vqakit reads a key from
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "VQAKIT_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "HF_TOKEN",
)

# which variables each backend takes its key from (in order); openai-compatible's is optional
BACKEND_KEYS = {
    "openai": ("OPENAI_API_KEY",),
    "openai-compatible": ("VQAKIT_API_KEY",),
    "anthropic": ("ANTHROPIC_API_KEY",),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
}

REDACTED = "[redacted]"
_SHAPES = (
    # (pattern, replacement): the key's name or scheme is kept, its value is not
    (re.compile(r"(?i)\b(bearer\s+)[\w.~+/=-]+"), rf"\g<1>{REDACTED}"),
    (
        re.compile(
            r"(?i)\b((?:x-(?:goog-)?api-key|api[_-]?key|key|token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&}]+"
        ),
        rf"\g<1>{REDACTED}",
    ),
    (re.compile(r"\bsk-[\w-]{12,}"), REDACTED),  # OpenAI, Anthropic (sk-ant-...), OpenRouter
    (re.compile(r"\bAIza[\w-]{30,}"), REDACTED),  # Google
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), REDACTED),  # Hugging Face
)
_MIN_SECRET = 6  # shorter values are not secrets worth hunting (and would mangle text)


def redact_secrets(text: str) -> str:
    """`text` with the values of the key variables vqakit reads, and common key shapes
    (`sk-...`, `Bearer <token>`, `x-api-key: ...`, `AIza...`, `hf_...`), replaced by
    `[redacted]`."""
    values = {os.environ.get(name, "").strip() for name in KEY_VARIABLES}
    for value in sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True):
        text = text.replace(value, REDACTED)
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text


def api_key(backend: str, *, required: bool = True) -> str | None:
    """The key for an API backend from the environment; ValueError naming the variable when a
    required one is missing."""
    names = BACKEND_KEYS[backend]
    key = next((os.environ[name] for name in names if os.environ.get(name)), None)
    if key is None and required:
        raise ValueError(f"{backend}: set {' (or '.join(names)}{')' * (len(names) - 1)} in the environment")
    return key
