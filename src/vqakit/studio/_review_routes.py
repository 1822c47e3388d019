"""Review mode: the queue, the sample view and decisions (pages and JSON endpoints)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vqakit.runs import RunFolder
from vqakit.studio._agreement import review_summary
from vqakit.studio._guard import identity_of, json_error
from vqakit.studio._queue import (
    Drop,
    Filters,
    QueueItem,
    build_queue,
    facets,
    filter_queue,
    find_audit,
    read_audit,
)
from vqakit.studio._render import is_fragment, page
from vqakit.studio._review import DROP_REASONS, DecisionBody, EditError, validation_problems
from vqakit.studio._studio import Studio
from vqakit.studio._views import sample_view
from vqakit.studio._workspace import Workspace


def run_label(run: RunFolder) -> str:
    config = run.config
    if run.participant:
        return f"human · {run.participant}"
    return (
        " · ".join(str(part) for part in (config.get("method"), config.get("model")) if part) or run.path.name
    )


def _wrong(workspace: Workspace) -> dict[str, set[str]]:
    return {
        run_label(run): {sid for sid, row in run.scores().items() if row.get("correct") is False}
        for run in workspace.runs
    }


def workspace_of(request: Request) -> Workspace:
    studio: Studio = request.app.state.studio
    workspace = studio.workspace(request.query_params.get("bench"))
    if workspace is None:
        raise LookupError(f"no benchmark {request.query_params.get('bench')!r} in this studio")
    return workspace


def queue_of(request: Request, workspace: Workspace) -> tuple[list[QueueItem], list[Drop]]:
    """The whole queue of a benchmark (kept until its samples or the runs change)."""
    studio: Studio = request.app.state.studio
    benchmark = workspace.benchmark()
    if benchmark is None:
        return [], []
    key = ("queue", workspace.key)
    cached = studio.caches.get(key)
    if cached is None or cached[0] is not benchmark:
        blind = read_audit(find_audit(benchmark, studio.settings.audit))
        cached = (benchmark, build_queue(benchmark, blind, _wrong(workspace)))
        studio.caches[key] = cached
    return cached[1]


def _mine(workspace: Workspace, person: str) -> dict[str, Any]:
    return {d.sample_id: d for d in workspace.reviews().history(person)}


def _queue_context(request: Request, workspace: Workspace) -> dict[str, Any]:
    person = identity_of(request).person or ""
    items, dropped = queue_of(request, workspace)
    filters = Filters.from_query(request.query_params)
    mine = _mine(workspace, person)
    shown, shown_drops = filter_queue(items, dropped, filters, set(mine))
    return {
        "workspace": workspace,
        "items": shown,
        "total": len(items),
        "dropped": shown_drops,
        "filters": filters,
        "facets": facets(items, dropped),
        "mine": mine,
        "query": request.url.query,
    }


async def review_page(request: Request) -> Response:
    workspace = workspace_of(request)
    context = await run_in_threadpool(_queue_context, request, workspace)
    selected = request.path_params.get("sample_id") or (context["items"][0].id if context["items"] else None)
    if selected is not None and is_fragment(request) and "sample_id" in request.path_params:
        return await run_in_threadpool(_sample_fragment, request, workspace, selected)
    view = await run_in_threadpool(_sample_context, request, workspace, selected) if selected else {}
    return page(request, "review.html.j2", title=f"Review · {workspace.name}", **context, **view)


async def queue_fragment(request: Request) -> Response:
    workspace = workspace_of(request)
    context = await run_in_threadpool(_queue_context, request, workspace)
    return page(request, "_queue.html.j2", **context)


def _sample_context(request: Request, workspace: Workspace, sample_id: str) -> dict[str, Any]:
    sample = workspace.sample(sample_id)
    if sample is None:
        raise LookupError(f"no sample {sample_id!r} in {workspace.name}")
    items, _ = queue_of(request, workspace)
    item = next((i for i in items if i.id == sample_id), None)
    person = identity_of(request).person or ""
    decision = _mine(workspace, person).get(sample_id)
    others = sum(1 for p, ds in workspace.reviews().latest().items() if p != person and sample_id in ds)
    return {
        "sample": sample_view(workspace, sample, item),
        "decision": decision,
        "others": others,
        "reasons": DROP_REASONS,
        "protocol": workspace.benchmark().card.protocol,
        "runs": _run_answers(workspace, sample_id),
    }


def _run_answers(workspace: Workspace, sample_id: str) -> list[dict[str, Any]]:
    found = []
    for run in workspace.runs:
        prediction = run.predictions().get(sample_id)
        row = run.scores().get(sample_id) or {}
        if prediction is not None:
            reply = prediction.reply if prediction.error is None else f"error: {prediction.error.message}"
            found.append({"run": run_label(run), "reply": reply or "", "status": row.get("status", "")})
    return found


def _sample_fragment(request: Request, workspace: Workspace, sample_id: str) -> Response:
    return page(
        request, "_sample.html.j2", workspace=workspace, **_sample_context(request, workspace, sample_id)
    )


async def frames_fragment(request: Request) -> Response:
    """The frames the protocol sends for a sample, as thumbnails that seek the player."""
    studio: Studio = request.app.state.studio
    workspace = workspace_of(request)
    sample = workspace.sample(request.path_params["sample_id"])
    if sample is None:
        raise LookupError(f"no sample {request.path_params['sample_id']!r}")
    protocol = workspace.benchmark().card.protocol
    shown = await run_in_threadpool(studio.frames.get, workspace, sample, protocol)
    return page(request, "_frames.html.j2", times=shown.times_s, key=workspace.key, sample_id=sample.id)


async def api_queue(request: Request) -> Response:
    workspace = workspace_of(request)
    context = await run_in_threadpool(_queue_context, request, workspace)
    return JSONResponse(
        {
            "bench": workspace.key,
            "total": context["total"],
            "items": [
                {
                    "id": item.id,
                    "question": item.sample.question,
                    "category": item.sample.metadata.category,
                    "skills": item.sample.metadata.skills,
                    "flags": item.flags,
                    "drops": [asdict(d) for d in item.drops],
                    "wrong_in": item.wrong_in,
                    "my_decision": getattr(context["mine"].get(item.id), "decision", None),
                }
                for item in context["items"]
            ],
            "dropped": [asdict(d) for d in context["dropped"]],
            "facets": context["facets"],
        }
    )


async def api_sample(request: Request) -> Response:
    workspace = workspace_of(request)
    context = await run_in_threadpool(_sample_context, request, workspace, request.path_params["sample_id"])
    decision = context["decision"]
    return JSONResponse(
        {
            **context["sample"],
            "my_decision": decision.model_dump() if decision else None,
            "reviewed_by_others": context["others"],
            "runs": context["runs"],
        }
    )


async def api_decide(request: Request) -> Response:
    workspace = workspace_of(request)
    sample = workspace.sample(request.path_params["sample_id"])
    if sample is None:
        return json_error(f"no sample {request.path_params['sample_id']!r} in {workspace.name}", 404)
    try:
        body = DecisionBody.model_validate(await request.json())
    except ValidationError as error:
        return json_error(validation_problems(error), 422)
    except ValueError:
        return json_error("the body is not JSON", 400)
    person = identity_of(request).person or ""
    try:
        decision, written = await run_in_threadpool(workspace.reviews().record, person, sample, body)
    except EditError as error:
        return json_error(error.problems, 422)
    return JSONResponse({"decision": decision.model_dump(), "written": written}, 201 if written else 200)


async def api_progress(request: Request) -> Response:
    workspace = workspace_of(request)
    benchmark = workspace.benchmark()
    ids = [s.id for s in benchmark.samples] if benchmark else []
    summary = await run_in_threadpool(lambda: review_summary(ids, workspace.reviews().latest()))
    return JSONResponse(asdict(summary))


ROUTES = [
    Route("/review", review_page),
    Route("/review/queue", queue_fragment),
    Route("/review/sample/{sample_id:path}", review_page),
    Route("/review/frames/{sample_id:path}", frames_fragment),
    Route("/api/queue", api_queue),
    Route("/api/progress", api_progress),
    Route("/api/sample/{sample_id:path}", api_sample),
    Route("/api/review/{sample_id:path}", api_decide, methods=["POST"]),
]
