"""Checking a model spec before a run, in seconds and without loading weights."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path
from typing import Any

from vqakit.models._backends import backend_info
from vqakit.models._secrets import api_key
from vqakit.models._settings import check_supported
from vqakit.models._spec import parse_model_spec

HUB_TIMEOUT_S = 5.0  # one look-up at the hub; never a retry loop
_HUB_ID = re.compile(r"[\w.-]+(/[\w.-]+)?")


def check_model_spec(text: str, *, need_key: bool = True) -> None:
    """Raise ValueError with a one-line reason when the spec cannot work here: bad form, a key
    inside it (`ModelSpecError`), unknown backend or settings, a missing SDK, the backend's own
    check (a missing replay file or local folder, an `hf:` hub model that is neither cached nor
    reachable, or HF_HUB_OFFLINE=1), a missing API key. What is checked is what the backend
    registered (`register_backend`). `need_key=False` passes a missing key (planning a run that
    sends nothing: `vqakit plan`)."""
    spec = parse_model_spec(text)
    info = backend_info(spec.backend)
    check_supported(spec.backend, spec.settings)
    for module in info.requires:
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            raise ValueError(
                f"{spec.backend}: {module} is not installed ({info.install or 'pip install ' + module})"
            )
    if info.check is not None:
        info.check(spec)
    if info.keys and need_key:
        api_key(spec.backend, required=info.key_required)


def _env_true(name: str) -> bool:
    return os.environ.get(name, "").strip().upper() in ("1", "ON", "YES", "TRUE")


def hub_offline() -> bool:
    return _env_true("HF_HUB_OFFLINE") or _env_true("TRANSFORMERS_OFFLINE")


def _hub_cache() -> str | None:
    if cache := os.environ.get("HF_HUB_CACHE"):
        return cache
    home = os.environ.get("HF_HOME")
    return os.path.join(home, "hub") if home else None


def _cached(repo_id: str) -> bool:
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo_id, "config.json", cache_dir=_hub_cache())
    return isinstance(found, str)


def _hub_problem(repo_id: str) -> str | None:
    """None when the hub answers that the model exists; otherwise why it cannot be had."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    try:
        HfApi(endpoint=os.environ.get("HF_ENDPOINT") or None).model_info(repo_id, timeout=HUB_TIMEOUT_S)
    except GatedRepoError:
        return "it is gated on the hub (accept its terms and set HF_TOKEN)"
    except RepositoryNotFoundError:
        return "the hub has no such model (or it is private: set HF_TOKEN)"
    except Exception as error:  # any network failure: the hub is not reachable from here
        return f"the model hub is not reachable ({type(error).__name__})"
    return None


def hf_load_options(model: str) -> dict[str, Any]:
    """`from_pretrained` options for `hf:<model>`: a local folder as is; a hub id from the local
    cache (`local_files_only`) when the hub is off or unreachable. ValueError, in seconds, when
    the model cannot be had."""
    path = Path(model).expanduser()
    if path.exists():
        if not (path / "config.json").is_file():
            raise ValueError(f"hf: {model} is not a model folder (no config.json in it)")
        return {}
    if model.startswith((".", "~", "/")) or not _HUB_ID.fullmatch(model):
        raise ValueError(f"hf: local folder {model} not found")
    cached = _cached(model)
    options: dict[str, Any] = {"cache_dir": _hub_cache()} if _hub_cache() else {}
    if hub_offline():
        if cached:
            return {**options, "local_files_only": True}
        raise ValueError(f"hf: {model} is not in the local model cache and HF_HUB_OFFLINE=1")
    problem = _hub_problem(model)
    if problem is None:
        return options
    if cached:
        return {**options, "local_files_only": True}
    raise ValueError(f"hf: {model} is not in the local model cache and {problem}")
