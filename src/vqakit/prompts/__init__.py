"""Prompt templates: one file per prompt, addressed by name; every sentence a model reads is one.

A prompt is `<name>.txt`, a Jinja2 template (`{{ question }}`, `{% for ... %}`), rendered in
Jinja's sandbox with undefined fields as errors and the result stripped. The generic prompts
live in this folder; a benchmark system keeps its prompts in a `prompts/` folder beside its code
and registers it with `register_prompt_folder`. Names are unique across folders. The hash of
every prompt goes into each run's manifest.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from vqakit.plugins import load_plugins

_FOLDERS: list[Path] = [Path(__file__).parent]
_ENVIRONMENT = SandboxedEnvironment(
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
)


def register_prompt_folder(folder: str | Path) -> None:
    """Make the `*.txt` prompts of `folder` addressable by name; a name already taken elsewhere
    is an error (two prompts with one name would make runs ambiguous)."""
    folder = Path(folder).resolve()
    if folder in _FOLDERS:
        return
    taken = {path.stem: path for known in _FOLDERS for path in known.glob("*.txt")}
    clashes = sorted(path.stem for path in folder.glob("*.txt") if path.stem in taken)
    if clashes:
        raise ValueError(
            f"prompt folder {folder} repeats prompt names already registered: {', '.join(clashes)}"
        )
    _FOLDERS.append(folder)
    _paths.cache_clear()


@cache
def _paths() -> dict[str, Path]:
    return {path.stem: path for folder in _FOLDERS for path in sorted(folder.glob("*.txt"))}


def prompt_names() -> list[str]:
    load_plugins()
    return sorted(_paths())


def prompt_path(name: str) -> Path:
    """The file of a registered prompt; unknown names are an error listing the known ones."""
    load_plugins()
    found = _paths().get(name)
    if found is None:
        raise ValueError(f"unknown prompt {name!r}; known: {', '.join(sorted(_paths()))}")
    return found


def load_prompt(name: str) -> str:
    return prompt_path(name).read_text(encoding="utf-8")


def prompt_hash(name: str) -> str:
    return hashlib.sha256(load_prompt(name).encode()).hexdigest()[:16]


@cache
def _template(path: Path, mtime_ns: int) -> jinja2.Template:
    return _ENVIRONMENT.from_string(path.read_text(encoding="utf-8"))


def render_template_text(text: str, **fields: object) -> str:
    """Render prompt text that is not a registered file (e.g. one a benchmark ships)."""
    return _ENVIRONMENT.from_string(text).render(**fields).strip()


def render_prompt(name: str, **fields: object) -> str:
    path = prompt_path(name)
    return _template(path, path.stat().st_mtime_ns).render(**fields).strip()


__all__ = [
    "load_prompt",
    "prompt_hash",
    "prompt_names",
    "prompt_path",
    "register_prompt_folder",
    "render_prompt",
    "render_template_text",
]
