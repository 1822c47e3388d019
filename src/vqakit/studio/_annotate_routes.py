"""Annotate mode: the authoring page, live checks of a draft, saves and deletes (JSON)."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vqakit.studio._annotate import AnnotateError, AnnotationFolder, ChangeBody
from vqakit.studio._body import json_body, json_value
from vqakit.studio._guard import identity_of, json_error
from vqakit.studio._render import page
from vqakit.studio._review_routes import workspace_of
from vqakit.studio._views import media_url
from vqakit.studio._workspace import StudioError, Workspace


def _folder(workspace: Workspace) -> AnnotationFolder:
    if workspace.annotation is None:
        raise StudioError(f"{workspace.name} is not a folder the studio annotates")
    return workspace.annotation


def _state(workspace: Workspace) -> dict[str, Any]:
    folder = _folder(workspace)
    videos = []
    for relative in folder.videos():
        duration, width, height = folder.video_info(relative)
        videos.append(
            {
                "path": relative,
                "url": media_url(workspace, relative),
                "duration_s": duration,
                "width": width,
                "height": height,
                "next_id": folder.next_id(relative),
            }
        )
    return {
        "bench": workspace.key,
        "videos": videos,
        "samples": folder.samples(),
        "problems": [str(p) for p in folder.problems()],
    }


async def annotate_page(request: Request) -> Response:
    workspace = workspace_of(request)
    state = await run_in_threadpool(_state, workspace)
    return page(
        request, "annotate.html.j2", title=f"Annotate · {workspace.name}", workspace=workspace, state=state
    )


async def api_state(request: Request) -> Response:
    return JSONResponse(await run_in_threadpool(_state, workspace_of(request)))


async def api_check(request: Request) -> Response:
    workspace = workspace_of(request)
    draft = await json_value(request)
    if not isinstance(draft, dict):
        return json_error("body: not a JSON object (a draft sample)", 422)
    checked = await run_in_threadpool(_folder(workspace).check_draft, draft)
    return JSONResponse(
        {"ok": not checked.problems, "problems": checked.problems, "warnings": checked.warnings}
    )


async def api_change(request: Request) -> Response:
    workspace = workspace_of(request)
    body = await json_body(request, ChangeBody)
    person = identity_of(request).person or ""
    try:
        record, written = await run_in_threadpool(
            _folder(workspace).change, person, request.path_params["sample_id"], body
        )
    except AnnotateError as error:
        return json_error(error.problems, 422)
    return JSONResponse({"change": record, "written": written}, 201 if written else 200)


ROUTES = [
    Route("/annotate", annotate_page),
    Route("/api/annotate", api_state),
    Route("/api/annotate-check", api_check, methods=["POST"]),
    Route("/api/annotate/{sample_id:path}", api_change, methods=["POST"]),
]
