"""API keys: read from the environment only, and kept out of every text vqakit stores.

- A model spec never carries a key (`credential_in_spec`): specs are written to config.yaml,
  predictions, reports and caches, so a spec with `user:password@` in its URL, a key-like query
  parameter (`?api_key=...`) or a known key value is refused when it is parsed, before anything
  is written, and the error says which variable to set instead.
- Every key value known to this process (`known_secrets`: the key variables of every backend,
  `VQAKIT_API_BASIC_AUTH`, and values given to `remember_secret`) is replaced by `[redacted]` in
  every reply as it becomes a `Completion` (so in predictions, judgments, the response cache,
  batch journals and reports), and error texts also lose common key shapes (`redact_secrets`).
"""

from __future__ import annotations

import base64
import os
import re
import threading

# every variable vqakit's own backends read a key from (plug-in backends add theirs)
KEY_VARIABLES = (
    "OPENAI_API_KEY",
    "VQAKIT_API_KEY",
    "VQAKIT_API_BASIC_AUTH",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "HF_TOKEN",
)
BASIC_AUTH_VARIABLE = "VQAKIT_API_BASIC_AUTH"  # user:password, for a server behind basic auth

REDACTED = "[redacted]"
_SHAPES = (
    # (pattern, replacement): the key's name or scheme is kept, its value is not
    (re.compile(r"(?i)\b(bearer\s+)[\w.~+/=-]+"), rf"\g<1>{REDACTED}"),
    (re.compile(r"(?i)\b(authorization[\"']?\s*[:=]\s*[\"']?basic\s+)[\w+/=-]+"), rf"\g<1>{REDACTED}"),
    (
        re.compile(
            r"(?i)\b((?:x-(?:goog-)?api-key|api[_-]?key|key|token)[\"']?\s*[:=]\s*[\"']?)[^\s\"',;&}]+"
        ),
        rf"\g<1>{REDACTED}",
    ),
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/?#@\s\"']+@"), rf"\g<1>{REDACTED}@"),  # user:password@
    (re.compile(r"\bsk-[\w-]{12,}"), REDACTED),  # OpenAI, Anthropic (sk-ant-...), OpenRouter
    (re.compile(r"\bAIza[\w-]{30,}"), REDACTED),  # Google
    (re.compile(r"\bhf_[A-Za-z0-9]{20,}"), REDACTED),  # Hugging Face
)
_VALUE_SHAPES = _SHAPES[-3:]  # shapes that are a key by themselves, wherever they stand
_MIN_SECRET = 6  # shorter values are not secrets worth hunting (and would mangle text)

_USERINFO = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^/?#@\s]*@")
_QUERY_NAME = re.compile(r"[?&]([^=&#?]+)=")
_CREDENTIAL_NAMES = {
    "key", "apikey", "api_key", "token", "access_token", "auth", "authorization", "secret",
    "client_secret", "password", "passwd", "pwd", "sig", "signature", "credential", "credentials",
}  # fmt: skip
_CREDENTIAL_SUFFIXES = ("_key", "_token", "_secret", "_password")

_remembered: set[str] = set()
_remembered_lock = threading.Lock()


def remember_secret(value: str | None) -> None:
    """Treat `value` as a key from now on, in this process: a backend given a key some other way
    than its environment variables calls this, so that the key is redacted like those."""
    if value and len(value.strip()) >= _MIN_SECRET:
        with _remembered_lock:
            _remembered.add(value.strip())


def _variables() -> tuple[str, ...]:
    from vqakit.models._backends import key_variables

    return tuple(dict.fromkeys((*KEY_VARIABLES, *key_variables())))


def known_secrets() -> tuple[str, ...]:
    """Every key value known here, longest first: the key variables that are set (basic auth's
    password and its encoded header value too) and the values given to `remember_secret`."""
    values = set(_remembered)
    for name in _variables():
        value = os.environ.get(name, "").strip()
        if not value:
            continue
        values.add(value)
        if name == BASIC_AUTH_VARIABLE:
            values.add(value.partition(":")[2])
            values.add(base64.b64encode(value.encode()).decode("ascii"))
    return tuple(sorted((v for v in values if len(v) >= _MIN_SECRET), key=len, reverse=True))


def redact_known(text: str) -> str:
    """`text` with every known key value (`known_secrets`) replaced by `[redacted]`, and nothing
    else touched: for replies, which may legitimately hold `"key": ...` or `token=`."""
    for value in known_secrets():
        if value in text:
            text = text.replace(value, REDACTED)
    return text


def redact_secrets(text: str) -> str:
    """`text` with the known key values and common key shapes (`sk-...`, `Bearer <token>`,
    `x-api-key: ...`, `AIza...`, `hf_...`, `user:password@` in a URL) replaced by
    `[redacted]`: for error texts and anything else that is not a model's reply."""
    text = redact_known(text)
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text


def credential_in_spec(text: str) -> str | None:
    """Where `text` (a model or embedder spec) carries a credential, in words; None when it
    carries none. Looked for: `user:password@` (or `token@`) in a URL, a query parameter named
    like a key (`key`, `api_key`, `api-key`, `token`, `access_token`, `password`, `sig`, ...,
    or ending in `_key`, `_token`, `_secret`, `_password`), a known key value or a key shape."""
    if _USERINFO.search(text):
        return "credentials before '@' in the URL"
    for name in _QUERY_NAME.findall(text):
        word = name.strip().lower().replace("-", "_")
        if word in _CREDENTIAL_NAMES or word.endswith(_CREDENTIAL_SUFFIXES):
            return f"the query parameter {name.strip()!r}"
    if any(value in text for value in known_secrets()):
        return "the value of a key variable"
    if any(pattern.search(text) for pattern, _ in _VALUE_SHAPES):
        return "an API key"
    return None


def api_key(backend: str, *, required: bool = True) -> str | None:
    """The key of a registered backend from the environment; ValueError naming the variable when
    a required one is missing."""
    from vqakit.models._backends import backend_info

    names = backend_info(backend).keys
    key = next((os.environ[name] for name in names if os.environ.get(name)), None)
    if key is None and required:
        raise ValueError(f"{backend}: set {' (or '.join(names)}{')' * (len(names) - 1)} in the environment")
    return key
