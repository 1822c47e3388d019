"""API keys: read from the environment only, and kept out of every text vqakit stores.

- A model spec never carries a key (`credential_in_spec`): specs are written to config.yaml,
  predictions, reports and caches, so a spec with `user:password@` in its URL, a key-like query
  parameter (`?api_key=...`) or a known key value is refused when it is parsed, before anything
  is written, and the error says which variable to set instead.
- An argument never carries one either (`credential_in_arguments`): the values given with
  `--model-arg`, `--judge-arg` and `--method-arg` are stored like specs (config.yaml, the
  model's name in predictions, the response cache), so a run whose arguments carry a key, by
  value, shape or name (`system="... $VQAKIT_API_KEY ..."`, `token=...`), is refused before
  anything is written, as a spec carrying a key is.
- Every key value known to this process (`known_secrets`: the key variables of every backend,
  `VQAKIT_API_BASIC_AUTH`, and values given to `remember_secret`) is replaced by `[redacted]` in
  every reply as it becomes a `Completion` (so in predictions, judgments, the response cache,
  batch journals and reports), and error texts also lose common key shapes (`redact_secrets`).
  What a run writes besides (config.yaml, manifest.json, each prediction and judgment, the
  model spec a response is cached under) goes through `redact_record`, so a known key that
  reached it some other way (a question of the benchmark, a prompt file) is not stored either.
  A value is also looked for as a URL query carries it (percent-encoded).
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, quote_plus

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
    values |= {encoded for value in values for encoded in (quote(value, safe=""), quote_plus(value))}
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
        if _key_name(name):
            return f"the query parameter {name.strip()!r}"
    if any(value in text for value in known_secrets()):
        return "the value of a key variable"
    if any(pattern.search(text) for pattern, _ in _VALUE_SHAPES):
        return "an API key"
    return None


def _key_name(name: str) -> bool:
    word = name.strip().lower().replace("-", "_")
    return word in _CREDENTIAL_NAMES or word.endswith(_CREDENTIAL_SUFFIXES)


def _texts(value: Any) -> list[str]:
    """Every text in an argument's value (lists and mappings searched, keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [text for key, item in value.items() for text in (*_texts(key), *_texts(item))]
    if isinstance(value, list | tuple | set):
        return [text for item in value for text in _texts(item)]
    return [] if value is None or isinstance(value, bool | int | float) else [str(value)]


def credential_in_arguments(arguments: Mapping[str, Any]) -> tuple[str, str] | None:
    """(name, where, in words) of the first argument that carries a credential: one named like a
    key (`key`, `api_key`, `token`, `password`, `..._secret`, ...), or one with a text in which
    `credential_in_spec` finds one (a known key value, a key shape, `user:password@` in a URL,
    a key-named query parameter); None when none does."""
    for name, value in arguments.items():
        if _key_name(str(name)):
            return str(name), "it is named like a key"
        for text in _texts(value):
            if where := credential_in_spec(text):
                return str(name), where
    return None


def redact_record(data: Any) -> Any:
    """`data` (JSON-like: mappings, lists, text) with every known key value replaced by
    `[redacted]` in each text, keys of mappings included; `data` itself when it holds none."""
    secrets = known_secrets()
    if not secrets:
        return data

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            return redact_known(value) if any(secret in value for secret in secrets) else value
        if isinstance(value, Mapping):
            return {clean(key): clean(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(clean(item) for item in value)
        return value

    return clean(data)


def api_key(backend: str, *, required: bool = True) -> str | None:
    """The key of a registered backend from the environment; ValueError naming the variable when
    a required one is missing."""
    from vqakit.models._backends import backend_info

    names = backend_info(backend).keys
    key = next((os.environ[name] for name in names if os.environ.get(name)), None)
    if key is None and required:
        raise ValueError(f"{backend}: set {' (or '.join(names)}{')' * (len(names) - 1)} in the environment")
    return key
