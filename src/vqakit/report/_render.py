"""The Jinja2 environment of vqakit's HTML pages (one template per page, in `templates/`)."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from vqakit.files import template_cache, write_text_atomic

TEMPLATES = Path(__file__).parent / "templates"


@cache
def environment() -> jinja2.Environment:
    settings = {"autoescape": True, "trim_blocks": True, "lstrip_blocks": True}
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        bytecode_cache=template_cache("report", sorted(settings.items())),
        **settings,
    )


def render_page(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


def write_page(path: str | Path, template: str, **context: Any) -> Path:
    """Render a page and write it atomically."""
    return write_text_atomic(path, render_page(template, **context))


@cache
def templates_digest() -> str:
    """A digest of every page template and of vqakit's version: what a page also depends on."""
    from vqakit import __version__

    digest = hashlib.sha256(__version__.encode())
    for path in sorted(TEMPLATES.rglob("*")):
        if path.is_file():
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
