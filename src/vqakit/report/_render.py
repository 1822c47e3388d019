"""The Jinja2 environment of vqakit's HTML pages (one template per page, in `templates/`)."""

from __future__ import annotations

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
