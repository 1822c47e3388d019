"""The door of the studio, in front of every route (ASGI middlewares).

- On a loopback bind the Host header must name the loopback address the studio listens on (no
  other site can reach it through DNS rebinding); anyone local may log in by name.
- Elsewhere every request needs a person: their token (`?token=` in their link, which sets a
  session cookie and is then dropped from the address, or `Authorization: Bearer TOKEN` for
  scripts), or the cookie; anything else is 401. Tokens and sessions are bound to this studio's
  folders and expire (`_auth`); a revoked person's are refused.
- Every state-changing request carries the session's CSRF token in `X-CSRF-Token` (403 without).
- Each path belongs to modes (`ROUTE_MODES`); a person reaches the paths of their role's modes
  only (participants: answer mode, never a page or a file that shows a gold answer).
- A query value over `MAX_QUERY` characters is 422; a body over the studio's limit is 413, read
  no further (`_body`).
- `SecureHeaders`, outside everything else (errors and 500s included), says on every response what
  a page may load (Content-Security-Policy: scripts, styles and media of the studio only, no
  inline script), and that it is not to be framed, sniffed, cached by others or sent a referrer.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import parse_qsl, urlencode

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vqakit.studio._auth import Identity
from vqakit.studio._body import query_problem
from vqakit.studio._people import MODES
from vqakit.studio._studio import Studio

CSRF_HEADER = "x-csrf-token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
OPEN_PATHS = ("/static/", "/login", "/api/session", "/favicon.ico")  # reachable before logging in (loopback)
# (path prefix, the modes it belongs to), most specific first; paths not listed: every person
ROUTE_MODES: list[tuple[str, set[str]]] = [
    ("/review/frames/", {"review", "adjudicate"}),
    ("/api/frames/", {"review", "adjudicate"}),
    ("/api/progress", {"review", "adjudicate"}),
    ("/api/sample/", {"review", "adjudicate"}),
    ("/review", {"review"}),
    ("/api/queue", {"review"}),
    ("/api/review/", {"review"}),
    ("/annotate", {"annotate"}),
    ("/api/annotate", {"annotate"}),
    ("/answer", {"answer"}),
    ("/api/answer", {"answer"}),
    ("/api/next", {"answer"}),
    ("/clip/", {"answer"}),
    ("/adjudicate", {"adjudicate"}),
    ("/api/disagreements", {"adjudicate"}),
    ("/api/adjudicate/", {"adjudicate"}),
    ("/media/", {"review", "annotate", "adjudicate"}),  # participants: frames, or the window's clip
    ("/frames/", {"review", "answer", "adjudicate"}),
    ("/api/benchmarks", {"review", "annotate", "adjudicate"}),
]
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
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=(), usb=()",
}


def cookie_name(studio: Studio) -> str:
    # cookies are shared by every port of a host: one name per studio port
    return f"vqakit_studio_{studio.settings.port}"


def modes_of(path: str) -> set[str] | None:
    """The modes a path belongs to (None: any person's)."""
    return next((modes for prefix, modes in ROUTE_MODES if path.startswith(prefix)), None)


class SecureHeaders:
    """The security headers on every response of the app it wraps, whatever made it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_secured)


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
            await refused(scope, receive, send)
            return
        identity, set_cookie = refused
        if request.method not in SAFE_METHODS:
            body = await _read_body(receive, request, self.studio.settings.max_body)
            if isinstance(body, Response):
                await body(scope, receive, send)
                return
            receive = _replay(body, receive)
        scope.setdefault("state", {})["identity"] = identity
        cookie = self.studio.signer.cookie(identity) if set_cookie else None

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and cookie is not None:
                headers = MutableHeaders(scope=message)
                headers.append("set-cookie", cookie_header(self.studio, cookie, identity.expires))
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def _identity(self, request: Request, api: bool) -> Response | tuple[Identity, bool]:
        """The session of the request (and whether to set its cookie), or the response ending it."""
        studio, signer = self.studio, self.studio.signer
        path = request.url.path
        token = request.query_params.get("token")
        auth = request.headers.get("authorization", "")
        bearer = auth[7:].strip() if auth.lower().startswith("bearer ") else None
        if token is None and bearer is None:
            found = signer.read_cookie(request.cookies.get(cookie_name(studio)))
            if found is not None and studio.knows(found.person, found.role):
                return found, False
            if studio.loopback:
                return signer.fresh(None), True
            return _unauthorised(api, "open the studio with your link (it carries your token)")
        given = bearer if bearer is not None else token or ""
        opened = studio.person_by_token(given)
        if opened is None:
            return _unauthorised(
                api, "this link's token is not valid for this studio (wrong, expired or revoked)"
            )
        person, expires = opened
        if bearer is not None:
            return signer.bearer(person.name, person.role, bearer, expires), False
        identity = signer.fresh(person.name, person.role, expires)
        if request.method == "GET" and not api:  # drop the token from the address bar
            query = urlencode([(k, v) for k, v in parse_qsl(request.url.query) if k != "token"])
            local = "/" + path.lstrip("/\\")  # never `//host`: the redirect stays on the studio
            response = RedirectResponse(local + (f"?{query}" if query else ""), 303)
            response.headers.append("set-cookie", cookie_header(studio, signer.cookie(identity), expires))
            return response
        return identity, True

    def _refusal(self, request: Request) -> Response | tuple[Identity, bool]:
        """A response that ends the request here, or (the session, whether to set its cookie)."""
        studio = self.studio
        path = request.url.path
        api = path.startswith("/api/")
        if studio.allowed_hosts is not None and request.headers.get("host") not in studio.allowed_hosts:
            return PlainTextResponse("unknown host: open the studio at the address it printed", 400)
        for name, value in request.query_params.multi_items():
            problem = query_problem(name, value)
            if problem is not None:
                return JSONResponse({"error": problem, "problems": [problem]}, 422)
        found = self._identity(request, api)
        if isinstance(found, Response):
            return found
        identity, set_cookie = found
        if request.method not in SAFE_METHODS and not studio.signer.csrf_ok(
            identity, request.headers.get(CSRF_HEADER)
        ):
            return JSONResponse(
                {"error": f"missing or wrong CSRF token (send it in the {CSRF_HEADER} header)"}, 403
            )
        if identity.person is None and path != "/" and not path.startswith(OPEN_PATHS):
            if api:
                return JSONResponse({"error": 'log in first: POST /api/session {"person": NAME}'}, 401)
            return RedirectResponse("/login?" + urlencode({"next": str(request.url.path)}), 303)
        needed = modes_of(path)
        if identity.person is not None and needed is not None and not needed & set(MODES[identity.role]):
            if identity.role == "participant":
                return _forbidden(api, "participants answer questions only")
            return _forbidden(api, f"{identity.role}s do not use {' or '.join(sorted(needed))} mode")
        return identity, set_cookie


async def _read_body(receive: Receive, request: Request, limit: int) -> bytes | Response:
    """The whole body, or a 413 as soon as it is longer than `limit` (nothing more is read)."""
    too_large = JSONResponse(
        {"error": f"body: at most {limit} bytes", "problems": [f"body: at most {limit} bytes"]}, 413
    )
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > limit):
        return too_large
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return Response(status_code=400)  # the client went away
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return too_large
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def cookie_args(name: str, value: str, expires: int) -> dict[str, Any]:
    max_age = max(0, expires - int(time.time()))
    return {
        "key": name,
        "value": value,
        "httponly": True,
        "samesite": "strict",
        "path": "/",
        "max_age": max_age,
    }


def cookie_header(studio: Studio, value: str, expires: int) -> str:
    response = Response()
    response.set_cookie(**cookie_args(cookie_name(studio), value, expires))
    return response.headers["set-cookie"]


def _unauthorised(api: bool, why: str) -> Response:
    if api:
        return JSONResponse({"error": why}, 401)
    return PlainTextResponse(f"401: {why}", 401)


def _forbidden(api: bool, why: str) -> Response:
    return JSONResponse({"error": why}, 403) if api else PlainTextResponse(f"403: {why}", 403)


def identity_of(request: Request) -> Identity:
    return request.scope["state"]["identity"]


def json_error(message: str | list[str], status: int) -> JSONResponse:
    problems = message if isinstance(message, list) else [message]
    return JSONResponse({"error": "; ".join(problems), "problems": problems}, status)
