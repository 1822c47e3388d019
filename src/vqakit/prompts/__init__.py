"""Prompt templates: one file per prompt, addressed by name; every sentence a model reads is one.

A prompt is `<name>.txt`, a Jinja2 template (`{{ question }}`, `{% for ... %}`), rendered in
Jinja's sandbox with undefined fields as errors and the result stripped. The generic prompts
live in this folder; a benchmark system keeps its prompts in a `prompts/` folder beside its code
and registers it with `register_prompt_folder`. Names are unique across folders. A benchmark
may also ship its own prompt as a file inside its folder (`prompt: prompts/my_mcq.txt` in its
protocol): such a name is a path relative to the benchmark folder and may not leave it. The
hash of every prompt goes into each run's manifest.
"""

from __future__ import annotations

import hashlib
import time
from functools import cache
from pathlib import Path

import jinja2
from jinja2.sandbox import SandboxedEnvironment

from vqakit.files import did_you_mean
from vqakit.plugins import load_systems

_FOLDERS: list[Path] = [Path(__file__).parent]
_ENVIRONMENT = SandboxedEnvironment(
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
    autoescape=False,
)


# answer prompts: the ones a user picks with `--prompt` (or a card's protocol); the others are
# the internal steps of methods, judges and builders, never listed to users
_ANSWER_PROMPTS: set[str] = {"mcq", "mcq_reasoning", "mcq_numbered", "open_short"}


def register_prompt_folder(folder: str | Path, answer_prompts: tuple[str, ...] = ()) -> None:
    """Make the `*.txt` prompts of `folder` addressable by name; a name already taken elsewhere
    is an error (two prompts with one name would make runs ambiguous). `answer_prompts` names
    those a user may pick with `--prompt` (listed when a name is mistyped)."""
    _ANSWER_PROMPTS.update(answer_prompts)
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
    load_systems()
    return sorted(_paths())


def answer_prompt_names() -> list[str]:
    """The prompts a user picks with `--prompt` (the others are internal steps)."""
    load_systems()
    return sorted(name for name in _ANSWER_PROMPTS if name in _paths())


def prompt_path(name: str) -> Path:
    """The file of a registered prompt; an unknown name is an error naming the closest answer
    prompt and listing the answer prompts (internal ones are not offered)."""
    load_systems()
    found = _paths().get(name)
    if found is None:
        public = answer_prompt_names()
        raise ValueError(
            f"unknown prompt {name!r}; {did_you_mean(name, public)}answer prompts: {', '.join(public)} "
            "(or a .txt file inside the benchmark folder)"
        )
    return found


def is_file_prompt(name: str) -> bool:
    """Whether `name` names a prompt file inside a benchmark folder rather than a registered one."""
    return name.endswith(".txt") or "/" in name or "\\" in name


def _file_prompt(name: str, folder: str | Path | None) -> Path:
    if folder is None:
        raise ValueError(f"prompt {name!r} is a file; it can only be read from inside a benchmark folder")
    root = Path(folder).resolve()
    path = (root / name).resolve()
    if Path(name).is_absolute() or not path.is_relative_to(root):
        raise ValueError(f"prompt file {name!r} is outside the benchmark folder {folder}")
    if not path.is_file():
        raise ValueError(f"prompt file {name!r} not found in the benchmark folder {folder}")
    return path


def check_prompt(name: str, folder: str | Path | None = None) -> None:
    """Raise ValueError when `name` is neither a registered prompt nor a prompt file inside
    `folder` (a benchmark folder)."""
    _file_prompt(name, folder) if is_file_prompt(name) else prompt_path(name)


def load_prompt(name: str, folder: str | Path | None = None) -> str:
    path = _file_prompt(name, folder) if is_file_prompt(name) else prompt_path(name)
    return path.read_text(encoding="utf-8")


def prompt_hash(name: str, folder: str | Path | None = None) -> str:
    return hashlib.sha256(load_prompt(name, folder).encode()).hexdigest()[:16]


@cache
def _template(path: Path, mtime_ns: int) -> jinja2.Template:
    return _ENVIRONMENT.from_string(path.read_text(encoding="utf-8"))


def render_template_text(text: str, **fields: object) -> str:
    """Render prompt text that is not a registered file (e.g. one a benchmark ships)."""
    return _ENVIRONMENT.from_string(text).render(**fields).strip()


_MTIME_FRESH_S = 1.0
_mtimes: dict[Path, tuple[float, int]] = {}  # path -> (when looked at, its modification time)


def _mtime(path: Path) -> int:
    """The file's modification time, looked at again once a second at most: a run renders a
    prompt per request, and an edited prompt file is still picked up."""
    now = time.monotonic()
    seen = _mtimes.get(path)
    if seen is None or now - seen[0] > _MTIME_FRESH_S:
        seen = _mtimes[path] = (now, path.stat().st_mtime_ns)
    return seen[1]


def render_prompt(name: str, *, folder: str | Path | None = None, **fields: object) -> str:
    """Render a registered prompt, or (with `folder`) a prompt file inside a benchmark folder."""
    path = _file_prompt(name, folder) if is_file_prompt(name) else prompt_path(name)
    return _template(path, _mtime(path)).render(**fields).strip()


__all__ = [
    "answer_prompt_names",
    "check_prompt",
    "is_file_prompt",
    "load_prompt",
    "prompt_hash",
    "prompt_names",
    "prompt_path",
    "register_prompt_folder",
    "render_prompt",
    "render_template_text",
]
