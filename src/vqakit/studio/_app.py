"""The studio's ASGI app (Starlette): home, log-in and log-out, session, media, frames and window
clips, the modes' routes, static files, and errors as plain pages or JSON (every one of them,
500s included, with the security headers: `SecureHeaders` wraps the whole app)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp

from vqakit.files import BadLogLines, UnreadableLog
from vqakit.runner import RunConfigError
from vqakit.schema import Sample
from vqakit.studio import _adjudicate_routes, _annotate_routes, _answer_routes, _review_routes
from vqakit.studio._body import BodyError, json_body
from vqakit.studio._guard import Guard, SecureHeaders, cookie_args, cookie_name, identity_of, json_error
from vqakit.studio._home import home
from vqakit.studio._jsonlog import problem_lines
from vqakit.studio._media import media_file, media_type
from vqakit.studio._people import check_person
from vqakit.studio._render import STATIC, page
from vqakit.studio._review import REQUEST_ID
from vqakit.studio._studio import Studio
from vqakit.studio._workspace import StudioError, Workspace


async def login_page(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    if not studio.loopback:
        return PlainTextResponse("401: open the studio with your link (it carries your token)", 401)
    return page(
        request,
        "login.html.j2",
        title="vqakit studio · who are you?",
        next=request.query_params.get("next", "/"),
    )


class SessionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    person: str = Field(max_length=64)
    request_id: str | None = Field(None, pattern=REQUEST_ID)


async def session(request: Request) -> Response:
    """GET: the session (person, role, CSRF token). POST {"person": NAME}: log in by name
    (loopback only; elsewhere people come in through their links)."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    if request.method == "POST":
        if not studio.loopback:
            return json_error("log in with your link: this studio is not on a loopback address", 403)
        body = await json_body(request, SessionBody)
        try:
            name = check_person(body.person)
        except ValueError as error:
            return json_error(f"person: {error}", 422)
        role = studio.roles.get(name, "reviewer")
        identity = studio.signer.fresh(name, role)
    response = JSONResponse(
        {
            "person": identity.person,
            "role": identity.role,
            "csrf": studio.signer.csrf(identity),
            "expires": identity.expires,
            "benchmarks": [{"key": w.key, "name": w.name, "modes": w.modes()} for w in studio.workspaces],
        }
    )
    if request.method == "POST":
        response.set_cookie(
            **cookie_args(cookie_name(studio), studio.signer.cookie(identity), identity.expires)
        )
    return response


async def logout(request: Request) -> Response:
    """End this browser's session (the cookie is cleared): on a loopback studio, log in again as
    anyone; elsewhere, open your link again."""
    studio: Studio = request.app.state.studio
    response = JSONResponse(
        {"next": "/login" if studio.loopback else None, "message": "logged out: open your link to come back"}
    )
    response.delete_cookie(cookie_name(studio), path="/", httponly=True, samesite="strict")
    return response


async def media(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    workspace = studio.workspace(request.path_params["key"])
    if workspace is None:
        return PlainTextResponse("404: no such benchmark", 404)
    path = await run_in_threadpool(media_file, workspace, request.path_params["path"])
    if path is None:
        return PlainTextResponse("404: not a media file of this benchmark", 404)
    return FileResponse(path, media_type=media_type(path))


def _visible_sample(request: Request, workspace: Workspace | None, sample_id: str) -> Sample:
    """The sample of a request for frames, where this person may see it (LookupError otherwise:
    404, the same as for a sample that is not there)."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    sample = workspace.sample(sample_id) if workspace else None
    if workspace is None or sample is None:
        raise LookupError("no such sample")
    if not studio.may_see(workspace, identity.person, identity.role, sample.id):
        raise LookupError("no such sample among the ones you are shown")
    return sample


async def frame(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    workspace = studio.workspace(request.path_params["key"])
    sample = await run_in_threadpool(
        _visible_sample, request, workspace, request.query_params.get("sample", "")
    )
    assert workspace is not None
    protocol = workspace.benchmark().card.protocol
    shown = await run_in_threadpool(studio.frames.get, workspace, sample, protocol)
    index = request.path_params["index"]
    if not 0 <= index < len(shown.jpegs):
        return PlainTextResponse("404: no such frame", 404)
    return Response(
        shown.jpegs[index], media_type="image/jpeg", headers={"cache-control": "private, max-age=3600"}
    )


async def clip(request: Request) -> Response:
    """The window of the question a person is answering, cut on its own (answer mode, where the
    card allows people to watch the video): nothing of the file outside the window."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    if studio.settings.answer_view != "video":
        return PlainTextResponse("403: this studio shows the frames the protocol sends", 403)
    workspace = studio.workspace(request.path_params["key"])
    if workspace is None or workspace.benchmark() is None:
        return PlainTextResponse("404: no such benchmark", 404)
    run = await run_in_threadpool(studio.participant_run, workspace, identity.person or "")
    current = await run_in_threadpool(run.next_sample)
    if current is None or current.id != request.query_params.get("sample"):
        return PlainTextResponse("404: not the question you are answering", 404)
    path, _ = await run_in_threadpool(studio.clips.get, workspace, current)
    return FileResponse(path, media_type="video/mp4", headers={"cache-control": "private, no-store"})


async def frame_times(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    workspace = _review_routes.workspace_of(request)
    sample = await run_in_threadpool(_visible_sample, request, workspace, request.path_params["sample_id"])
    shown = await run_in_threadpool(studio.frames.get, workspace, sample, workspace.benchmark().card.protocol)
    urls = [f"/frames/{workspace.key}/{i}?sample={sample.id}" for i in range(len(shown.times_s))]
    return JSONResponse({"times_s": shown.times_s, "urls": urls})


async def favicon(request: Request) -> Response:
    return Response(status_code=204)


async def benchmarks(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    return JSONResponse(
        [{"key": w.key, "name": w.name, "root": str(w.root), "modes": w.modes()} for w in studio.workspaces]
    )


def _api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


def _error(request: Request, message: str | list[str], status: int) -> Response:
    if _api(request):
        return json_error(message, status)
    text = message if isinstance(message, str) else "; ".join(message)
    return PlainTextResponse(f"{status}: {text}", status)


async def _not_found(request: Request, error: Exception) -> Response:
    return _error(request, str(error).strip("'\""), 404)


async def _conflict(request: Request, error: Exception) -> Response:
    return _error(request, str(error), 409)


async def _unreadable_log(request: Request, error: Exception) -> Response:
    """A log of this person's that cannot be read: said to them, naming its file and line, and
    what to do about it."""
    assert isinstance(error, BadLogLines | UnreadableLog)
    hint = error.hint if isinstance(error, BadLogLines) and error.hint else None
    return _error(request, problem_lines(error) + ([hint] if hint else []), 409)


async def _bad_body(request: Request, error: Exception) -> Response:
    assert isinstance(error, BodyError)
    return json_error(error.problems, error.status)


async def _http(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    return _error(request, str(error.detail), error.status_code)


async def _failed(request: Request, error: Exception) -> Response:
    """A bug: a plain 500 that shows nothing of the server's insides (the console has it)."""
    return _error(request, "the studio failed on this request (its console says why)", 500)


class StudioApp(Starlette):
    """Starlette with `SecureHeaders` outside its whole stack, so that even the 500s its error
    middleware makes carry the security headers."""

    def build_middleware_stack(self) -> ASGIApp:
        return SecureHeaders(super().build_middleware_stack())


def create_app(studio: Studio) -> Starlette:
    """The studio as an ASGI app (serve it with `serve`, or any ASGI server)."""
    routes = [
        Route("/", home),
        Route("/login", login_page),
        Route("/favicon.ico", favicon),
        Route("/api/session", session, methods=["GET", "POST"]),
        Route("/api/logout", logout, methods=["POST"]),
        Route("/api/benchmarks", benchmarks),
        Route("/api/frames/{sample_id:path}", frame_times),
        Route("/media/{key}/{path:path}", media),
        Route("/frames/{key}/{index:int}", frame),
        Route("/clip/{key}", clip),
        *_review_routes.ROUTES,
        *_answer_routes.ROUTES,
        *_annotate_routes.ROUTES,
        *_adjudicate_routes.ROUTES,
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = StudioApp(
        routes=routes,
        exception_handlers={
            LookupError: _not_found,
            StudioError: _conflict,
            RunConfigError: _conflict,
            BadLogLines: _unreadable_log,
            UnreadableLog: _unreadable_log,
            BodyError: _bad_body,
            HTTPException: _http,
            Exception: _failed,
        },
    )
    app.state.studio = studio
    app.add_middleware(Guard, studio=studio)
    return app
