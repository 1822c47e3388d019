"""The studio's ASGI app (Starlette): home, log-in, session, media and frames, the three modes'
routes, static files, and errors as plain pages or JSON."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from vqakit.runner import RunConfigError
from vqakit.studio import _annotate_routes, _answer_routes, _review_routes
from vqakit.studio._agreement import review_summary
from vqakit.studio._guard import Guard, cookie_name, identity_of, json_error
from vqakit.studio._media import media_file, media_type
from vqakit.studio._people import check_person
from vqakit.studio._render import STATIC, page
from vqakit.studio._review import validation_problems
from vqakit.studio._studio import Studio
from vqakit.studio._workspace import StudioError


async def home(request: Request) -> Response:
    identity = identity_of(request)
    if identity.person is None:
        return RedirectResponse("/login", 303)
    if identity.role == "participant":
        return RedirectResponse("/answer", 303)
    studio: Studio = request.app.state.studio

    def summaries() -> list[dict]:
        found = []
        for workspace in studio.workspaces:
            benchmark = workspace.benchmark()
            entry = {"workspace": workspace, "summary": None, "modes": workspace.modes(), "version": None}
            if benchmark is not None:
                entry["version"] = benchmark.card.version
                summary = review_summary([s.id for s in benchmark.samples], workspace.reviews().latest())
                entry["summary"] = summary
                entry["people"] = [[p.person, p.reviewed, p.keep, p.drop, p.edit] for p in summary.people]
                entry["agreement"] = [
                    [", ".join(a.people), f"{a.method}'s kappa", a.n, _number(a.kappa), _number(a.observed)]
                    for a in summary.agreement
                ]
            found.append(entry)
        return found

    return page(request, "home.html.j2", title="vqakit studio", entries=await run_in_threadpool(summaries))


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
    model_config = ConfigDict(extra="forbid")

    person: str
    request_id: str | None = None


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


async def session(request: Request) -> Response:
    """GET: the session (person, role, CSRF token). POST {"person": NAME}: log in by name
    (loopback only; elsewhere people come in through their links)."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    if request.method == "POST":
        if not studio.loopback:
            return json_error("log in with your link: this studio is not on a loopback address", 403)
        try:
            name = check_person(SessionBody.model_validate(await request.json()).person)
        except (ValidationError, ValueError) as error:
            problems = validation_problems(error) if isinstance(error, ValidationError) else [str(error)]
            return json_error(problems, 422)
        known = next((p for p in studio.settings.people if p.name == name), None)
        identity = studio.signer.fresh(name, known.role if known else "reviewer")
    response = JSONResponse(
        {
            "person": identity.person,
            "role": identity.role,
            "csrf": studio.signer.csrf(identity),
            "benchmarks": [{"key": w.key, "name": w.name, "modes": w.modes()} for w in studio.workspaces],
        }
    )
    if request.method == "POST":
        response.set_cookie(
            cookie_name(studio), studio.signer.cookie(identity), httponly=True, samesite="strict", path="/"
        )
    return response


async def media(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    workspace = studio.workspace(request.path_params["key"])
    if workspace is None:
        return PlainTextResponse("404: no such benchmark", 404)
    if identity.role == "participant" and studio.settings.answer_view != "video":
        return PlainTextResponse("403: participants see the frames the protocol sends", 403)
    path = await run_in_threadpool(media_file, workspace, request.path_params["path"])
    if path is None:
        return PlainTextResponse("404: not a media file of this benchmark", 404)
    return FileResponse(path, media_type=media_type(path))


async def frame(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    workspace = studio.workspace(request.path_params["key"])
    sample = workspace.sample(request.query_params.get("sample", "")) if workspace else None
    if workspace is None or sample is None:
        return PlainTextResponse("404: no such sample", 404)
    protocol = workspace.benchmark().card.protocol
    shown = await run_in_threadpool(studio.frames.get, workspace, sample, protocol)
    index = request.path_params["index"]
    if not 0 <= index < len(shown.jpegs):
        return PlainTextResponse("404: no such frame", 404)
    return Response(
        shown.jpegs[index], media_type="image/jpeg", headers={"cache-control": "private, max-age=3600"}
    )


async def frame_times(request: Request) -> Response:
    studio: Studio = request.app.state.studio
    workspace = _review_routes.workspace_of(request)
    sample = workspace.sample(request.path_params["sample_id"])
    if sample is None:
        return json_error("no such sample", 404)
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


async def _not_found(request: Request, error: Exception) -> Response:
    return json_error(str(error), 404) if _api(request) else PlainTextResponse(f"404: {error}", 404)


async def _conflict(request: Request, error: Exception) -> Response:
    return json_error(str(error), 409) if _api(request) else PlainTextResponse(f"409: {error}", 409)


async def _http(request: Request, error: Exception) -> Response:
    assert isinstance(error, HTTPException)
    if _api(request):
        return json_error(str(error.detail), error.status_code)
    return PlainTextResponse(f"{error.status_code}: {error.detail}", error.status_code)


def create_app(studio: Studio) -> Starlette:
    """The studio as an ASGI app (serve it with `serve`, or any ASGI server)."""
    routes = [
        Route("/", home),
        Route("/login", login_page),
        Route("/favicon.ico", favicon),
        Route("/api/session", session, methods=["GET", "POST"]),
        Route("/api/benchmarks", benchmarks),
        Route("/api/frames/{sample_id:path}", frame_times),
        Route("/media/{key}/{path:path}", media),
        Route("/frames/{key}/{index:int}", frame),
        *_review_routes.ROUTES,
        *_answer_routes.ROUTES,
        *_annotate_routes.ROUTES,
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={
            LookupError: _not_found,
            StudioError: _conflict,
            RunConfigError: _conflict,
            HTTPException: _http,
        },
    )
    app.state.studio = studio
    app.add_middleware(Guard, studio=studio)
    return app
