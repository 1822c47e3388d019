"""Model spec strings, parsed in exactly one place.

`backend:model[?settings]`, or `backend:<base url>#model[?settings]` for backends registered
with `base_url=True` (`_backends`): generation settings follow the model name as a query string
(`openai:o4-mini?reasoning_effort=high&max_tokens=8000`); `str(spec)` writes them back in a
stable order, so the string serves as an id. A spec never carries a key (`credential_in_spec`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import overload

from vqakit.files import did_you_mean
from vqakit.models._backends import BackendInfo, backends, find_backend
from vqakit.models._limits import LIMITS_FORM, TimeLimits, split_limits
from vqakit.models._secrets import credential_in_spec
from vqakit.models._settings import GenerationSettings, parse_settings_query, settings_query

SETTINGS_FORM = (
    "<any form>?key=value&...",
    "openai:gpt-4o-mini?temperature=0&max_tokens=512&system=Answer%20briefly.",
    "generation settings after the model name: temperature, top_p, max_tokens, seed, system, stop "
    "(may repeat), reasoning_effort, thinking_budget (0 = off), thinking (true/false)",
)


class ModelSpecError(ValueError):
    """A string that is not a usable model spec (bad form, unknown backend, bad settings, a key
    inside it): a mistake in the command, said before anything is written."""


def spec_forms() -> list[tuple[str, str, str]]:
    """(form, example, what it is) of every registered backend, then the settings form."""
    forms = [(info.form, info.example, info.summary) for info in backends().values()]
    return [*forms, SETTINGS_FORM, LIMITS_FORM]


class _SpecForms(Sequence[tuple[str, str, str]]):
    """`spec_forms()`, read when iterated (plug-in backends are listed once registered)."""

    @overload
    def __getitem__(self, index: int) -> tuple[str, str, str]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[str, str, str]]: ...
    def __getitem__(self, index: int | slice) -> tuple[str, str, str] | Sequence[tuple[str, str, str]]:
        return spec_forms()[index]

    def __len__(self) -> int:
        return len(spec_forms())


SPEC_FORMS: Sequence[tuple[str, str, str]] = _SpecForms()


@dataclass(frozen=True)
class ModelSpec:
    backend: str  # a registered backend: "openai", "openai-compatible", "anthropic", "hf", ...
    model: str  # model name, or the replay file
    base_url: str | None = None  # for backends whose spec carries one
    settings: GenerationSettings = field(default_factory=GenerationSettings)
    limits: TimeLimits = field(default_factory=TimeLimits)  # `?timeout=` / `?total_timeout=`

    def __str__(self) -> str:
        if self.base_url is not None:
            text = f"{self.backend}:{self.base_url}#{self.model}"
        else:
            text = f"{self.backend}:{self.model}"
        query = "&".join(part for part in (settings_query(self.settings), self.limits.query()) if part)
        return f"{text}?{query}" if query else text


def refuse_credentials(text: str, info: BackendInfo | None = None) -> None:
    """ModelSpecError when `text` carries a key (see `credential_in_spec`), saying how to give
    the key instead; the message never repeats the spec."""
    where = credential_in_spec(text)
    if where is None:
        return
    how = info.how_to_give_a_key() if info is not None else "set the backend's key variable (`vqakit models`)"
    raise ModelSpecError(f"a model spec cannot carry a key ({where}): specs are stored with every run; {how}")


def parse_model_spec(text: str) -> ModelSpec:
    """The spec `text` names; ModelSpecError when it is not one (or carries a key)."""
    backend, sep, rest = text.strip().partition(":")
    info = find_backend(backend) if sep else None
    refuse_credentials(text, info)
    if not sep or not rest:
        raise ModelSpecError(
            f"model spec {text!r} needs the form backend:model; {_suggested(text)}known forms: {_forms()}"
        )
    if info is None:
        hint = did_you_mean(backend, backends()) or _suggested(text)
        raise ModelSpecError(f"unknown model backend {backend!r} in {text!r}; {hint}known forms: {_forms()}")
    base_url = None
    if info.base_url:
        # the base URL may carry its own query (?api-version=...): settings follow the model
        base_url, hash_sign, rest = rest.rpartition("#")
        if not hash_sign or not base_url.startswith(("http://", "https://")):
            raise ModelSpecError(f"model spec {text!r}: use {backend}:<http(s) base url>#<model>")
        base_url = base_url.rstrip("/")
    model, _, query = rest.partition("?")
    if not model:
        raise ModelSpecError(f"model spec {text!r} names no model; known forms: {_forms()}")
    try:
        query, limits = split_limits(query)
        settings = parse_settings_query(query) if query else GenerationSettings()
    except ValueError as error:
        raise ModelSpecError(f"model spec {text!r}: {error}") from None
    return ModelSpec(backend, model, base_url, settings, limits)


def without_limits(text: str) -> str:
    """The spec with its time limits left out (they change how long vqakit waits, not what the
    model is asked); the text as it is when it is no spec."""
    try:
        spec = parse_model_spec(text)
    except ValueError:
        return text
    if spec.limits == TimeLimits():
        return text
    return str(ModelSpec(spec.backend, spec.model, spec.base_url, spec.settings))


SERVER_URL = "http://localhost:8000/v1"  # where suggestions put a server (vLLM's default port)


def suggested_specs(name: str) -> list[str]:
    """Specs that fit a bare model name, from what each backend registered it usually serves
    (`model_names`); a name none claims could still be served by an OpenAI-compatible server."""
    name = name.strip()

    def spec(info: BackendInfo) -> str:
        return f"{info.name}:{SERVER_URL}#{name}" if info.base_url else f"{info.name}:{name}"

    known = backends().values()
    found = [spec(info) for info in known if info.model_names and re.search(info.model_names, name, re.I)]
    return found or [spec(info) for info in known if info.base_url][:1]


def _suggested(name: str) -> str:
    found = suggested_specs(name) if name.strip() else []
    return f"did you mean {' or '.join(found)}? " if found else ""


def _forms() -> str:
    return ", ".join(form for form, _, _ in spec_forms())
