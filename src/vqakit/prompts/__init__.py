"""Prompt templates, one file per prompt, addressed by name; their hashes go in run manifests."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

_FOLDER = Path(__file__).parent


def prompt_names() -> list[str]:
    return sorted(path.stem for path in _FOLDER.glob("*.txt"))


@cache
def load_prompt(name: str) -> str:
    path = _FOLDER / f"{name}.txt"
    if not path.is_file():
        raise ValueError(f"unknown prompt {name!r}; known: {', '.join(prompt_names())}")
    return path.read_text(encoding="utf-8")


def prompt_hash(name: str) -> str:
    return hashlib.sha256(load_prompt(name).encode()).hexdigest()[:16]


def render_prompt(name: str, **fields: str) -> str:
    return load_prompt(name).format(**fields).strip()
