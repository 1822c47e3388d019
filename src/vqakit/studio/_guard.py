"""The door of the studio, in front of every route (an ASGI middleware).

- On a loopback bind the Host header must name the loopback address the studio listens on (no
  other site can reach it through DNS rebinding); anyone local may log in by name.
- Elsewhere every request needs a person: their token (`?token=` in their link, which sets a
  session cookie and is then dropped from the address, or `Authorization: Bearer TOKEN` for
  scripts), or the cookie; anything else is 401.
- Every state-changing request carries the session's CSRF token in `X-CSRF-Token` (403 without).
- Participants reach answer mode only: never a page or a file that shows a gold answer.
- Every response says what a page may load (Content-Security-Policy: scripts, styles and media
  of the studio only, no inline script), and is not to be framed or sniffed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vqakit.studio._auth import Identity
from vqakit.studio._studio import Studio

CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
OPEN_PATHS = ("/static/", "/login", "/api/session", "/favicon.ico")  # reachable before logging in (loopback)
PARTICIPANT_PATHS = (
    "/answer",
    "/api/answer",
    "/api/next",
    "/api/session",
    "/frames/",
    "/media/",
    "/static/",
    "/favicon.ico",
)
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        "media-src 'self'; connect-src 'self'; font-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


def cookie_name(studio: Studio) -> str:
    # cookies are shared by every port of a host: one name per studio port
    return f"vqakit_studio_{studio.settings.port}"


class Guard:
    def __init__(self, app: ASGIApp, studio: Studio) -> None:
        self.app = app
        self.studio = studio

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refused = self._refusal(request)
        if isinstance(refused, Response):
            await _secured(refused)(scope, receive, send)
            return
        identity, set_cookie = refused
        scope.setdefault("state", {})["identity"] = identity
        cookie = self.studio.signer.cookie(identity) if set_cookie else None

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
                if cookie is not None:
                    headers.append("set-cookie", _cookie_header(cookie_name(self.studio), cookie))
            await send(message)

        await self.app(scope, receive, send_secured)

    def _refusal(self, request: Request) -> Response | tuple[Identity, bool]:
        """A response that ends the request here, or (the session, whether to set its cookie)."""
        studio, signer = self.studio, self.studio.signer
        path = request.url.path
        api = path.startswith("/api/")
        if studio.allowed_hosts is not None and request.headers.get("host") not in studio.allowed_hosts:
            return PlainTextResponse("unknown host: open the studio at the address it printed", 400)
        token = request.query_params.get("token")
        auth = request.headers.get("authorization", "")
        bearer = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        set_cookie = False
        if token is not None or bearer is not None:
            person = studio.person_by_token(bearer if bearer is not None else token)
            if person is None:
                return _unauthorised(api, "this link's token is not valid for this studio")
            if bearer is not None:
                identity = signer.bearer(person.name, person.role, bearer)
            else:
                identity, set_cookie = signer.fresh(person.name, person.role), True
                if request.method == "GET" and not api:  # drop the token from the address bar
                    query = urlencode([(k, v) for k, v in parse_qsl(request.url.query) if k != "token"])
                    local = "/" + path.lstrip("/\\")  # never `//host`: the redirect stays on the studio
                    response = RedirectResponse(local + (f"?{query}" if query else ""), 303)
                    response.set_cookie(**_cookie_args(cookie_name(studio), signer.cookie(identity)))
                    return response
        else:
            found = signer.read_cookie(request.cookies.get(cookie_name(studio)))
            if found is not None and studio.knows(found.person, found.role):
                identity = found
            elif studio.loopback:
                identity, set_cookie = signer.fresh(None), True
            else:
                return _unauthorised(api, "open the studio with your link (it carries your token)")
        if request.method not in SAFE_METHODS and not signer.csrf_ok(
            identity, request.headers.get(CSRF_HEADER)
        ):
            return JSONResponse(
                {"error": f"missing or wrong CSRF token (send it in the {CSRF_HEADER} header)"}, 403
            )
        if identity.person is None and path != "/" and not path.startswith(OPEN_PATHS):
            if api:
                return JSONResponse({"error": 'log in first: POST /api/session {"person": NAME}'}, 401)
            return RedirectResponse("/login?" + urlencode({"next": str(request.url.path)}), 303)
        if identity.role == "participant" and path != "/" and not path.startswith(PARTICIPANT_PATHS):
            return _forbidden(api, "participants answer questions only")
        return identity, set_cookie


def _cookie_args(name: str, value: str) -> dict[str, Any]:
    return {"key": name, "value": value, "httponly": True, "samesite": "strict", "path": "/"}


def _cookie_header(name: str, value: str) -> str:
    response = Response()
    response.set_cookie(**_cookie_args(name, value))
    return response.headers["set-cookie"]


def _unauthorised(api: bool, why: str) -> Response:
    if api:
        return JSONResponse({"error": why}, 401)
    return PlainTextResponse(f"401: {why}", 401)


def _forbidden(api: bool, why: str) -> Response:
    return JSONResponse({"error": why}, 403) if api else PlainTextResponse(f"403: {why}", 403)


def _secured(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def identity_of(request: Request) -> Identity:
    return request.scope["state"]["identity"]


def json_error(message: str | list[str], status: int) -> JSONResponse:
    problems = message if isinstance(message, list) else [message]
    return JSONResponse({"error": "; ".join(problems), "problems": problems}, status)
