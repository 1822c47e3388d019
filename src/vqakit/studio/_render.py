"""Pages from Jinja2 templates (`templates/`), escaped everywhere; the report's macros are
reachable as `report/_macros.html.j2`."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from starlette.requests import Request
from starlette.responses import HTMLResponse

from vqakit.files import template_cache
from vqakit.studio._guard import identity_of
from vqakit.studio._people import MODES
from vqakit.studio._studio import Studio

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"


@cache
def environment() -> jinja2.Environment:
    loader = jinja2.ChoiceLoader(
        [
            jinja2.FileSystemLoader(TEMPLATES),
            jinja2.PrefixLoader({"report": jinja2.PackageLoader("vqakit.report", "templates")}),
        ]
    )
    settings = {"autoescape": True, "trim_blocks": True, "lstrip_blocks": True}
    return jinja2.Environment(
        loader=loader,
        undefined=jinja2.StrictUndefined,
        bytecode_cache=template_cache("studio", sorted(settings.items())),
        **settings,
    )


def page(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page or an htmx fragment, with the session's person and CSRF token."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    html = (
        environment()
        .get_template(template)
        .render(
            studio=studio,
            person=identity.person,
            role=identity.role,
            modes=MODES[identity.role] if identity.person else (),
            csrf=studio.signer.csrf(identity),
            **context,
        )
    )
    return HTMLResponse(html, status, headers={"cache-control": "no-store"})


def is_fragment(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"
