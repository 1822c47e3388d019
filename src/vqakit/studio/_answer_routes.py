"""Answer mode: a participant's next question (blind) and their answers (pages and JSON).

A participant's session sees only their own run: the next question they have not answered,
their own progress, never a gold answer, another person's answer or a model's output.
"""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vqakit.studio._answers import AnswerBody, AnswerError, ParticipantRun, shown_text
from vqakit.studio._body import json_body
from vqakit.studio._guard import identity_of, json_error
from vqakit.studio._media import subtitle_lines
from vqakit.studio._render import is_fragment, page
from vqakit.studio._review_routes import workspace_of
from vqakit.studio._studio import Studio
from vqakit.studio._views import blind_view


def _run(request: Request) -> ParticipantRun:
    studio: Studio = request.app.state.studio
    return studio.participant_run(workspace_of(request), identity_of(request).person or "")


def _next_context(request: Request) -> dict[str, Any]:
    studio: Studio = request.app.state.studio
    workspace = workspace_of(request)
    run = _run(request)
    sample = run.next_sample()
    answered, total = run.progress()
    view = studio.settings.answer_view
    problems = [str(p) for p in run.problems()]
    if problems:  # which questions the unreadable lines answer is unknown: ask nothing more
        sample = None
    elif sample is None and not run.scoring:  # finished before this server started: score now
        studio.score_later(run)
    shown = blind_view(workspace, sample, view, run.protocol.subtitles) if sample else None
    frames = []
    if sample is not None and view == "frames" and sample.videos:
        frames = studio.frames.get(workspace, sample, run.protocol).times_s
    if shown is not None and shown["video"] is not None:
        _, length = studio.clips.get(workspace, sample)
        shown["video"]["end_s"] = length
    return {
        "problems": problems,
        "workspace": workspace,
        "shown": shown,
        "frames": frames,
        "answered": answered,
        "total": total,
        "view": view,
        "scoring": run.scoring,
        "folder": str(run.folder),
    }


async def answer_page(request: Request) -> Response:
    context = await run_in_threadpool(_next_context, request)
    template = "_answer.html.j2" if is_fragment(request) else "answer.html.j2"
    return page(request, template, title=f"Answer · {context['workspace'].name}", **context)


async def api_next(request: Request) -> Response:
    context = await run_in_threadpool(_next_context, request)
    return JSONResponse(
        {
            "answered": context["answered"],
            "total": context["total"],
            "view": context["view"],
            "sample": context["shown"],
            "frames_s": context["frames"],
            "scoring": context["scoring"],
            "problems": context["problems"],
        }
    )


async def api_progress(request: Request) -> Response:
    run = await run_in_threadpool(_run, request)
    answered, total = run.progress()
    return JSONResponse(
        {"answered": answered, "total": total, "scoring": run.scoring, "run": str(run.folder)}
    )


def _record(request: Request, sample_id: str, body: AnswerBody) -> tuple[dict[str, Any], bool, bool]:
    studio: Studio = request.app.state.studio
    workspace = workspace_of(request)
    run = _run(request)
    sample = run.samples.get(sample_id)
    if sample is None:
        raise AnswerError(f"{sample_id!r} is not one of the questions of this session", 404)
    shown = None
    if studio.settings.answer_view == "frames" and sample.videos:
        shown = studio.frames.get(workspace, sample, run.protocol)
    subtitles = subtitle_lines(workspace.root, sample) if run.protocol.subtitles else []
    stored, written = run.record(sample_id, body, shown, shown_text(sample, subtitles))
    answered, total = run.progress()
    finished = written and answered == total
    if finished:
        studio.score_later(run)
    return stored, written, finished


async def api_answer(request: Request) -> Response:
    body = await json_body(request, AnswerBody)
    try:
        stored, written, finished = await run_in_threadpool(
            _record, request, request.path_params["sample_id"], body
        )
    except AnswerError as error:
        return json_error(str(error), error.status)
    answer = {key: stored.get(key) for key in ("request_id", "sample_id", "elapsed_s", "answered_at")}
    return JSONResponse({"answer": answer, "written": written, "finished": finished}, 201 if written else 200)


ROUTES = [
    Route("/answer", answer_page),
    Route("/api/next", api_next),
    Route("/api/answer", api_progress),
    Route("/api/answer/{sample_id:path}", api_answer, methods=["POST"]),
]
