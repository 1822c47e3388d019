"""Review mode: the queue, the sample view and decisions (pages and JSON endpoints)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vqakit.runs import RunFolder
from vqakit.studio._agreement import store_summary
from vqakit.studio._body import json_body
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
from vqakit.studio._review import DROP_REASONS, DecisionBody, EditError
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
    with studio.caches_lock:  # built once, however many reviewers open it at once
        cached = studio.caches.get(key)
        if cached is None or cached[0] is not benchmark:
            blind = read_audit(find_audit(benchmark, studio.settings.audit))
            cached = (benchmark, build_queue(benchmark, blind, _wrong(workspace)))
            studio.caches[key] = cached
    return cached[1]


def _mine(workspace: Workspace, person: str) -> dict[str, Any]:
    return {d.sample_id: d for d in workspace.reviews().history(person)}


def _assigned(request: Request, workspace: Workspace, items: list[QueueItem]) -> list[QueueItem]:
    """The items of this person's assignment, in their order (all items without `--assign`)."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    assignment = studio.assignments.get(workspace.key)
    if assignment is None or identity.role != "reviewer":
        return items
    by_id = {item.id: item for item in items}
    return [by_id[sid] for sid in assignment.queues.get(identity.person or "", []) if sid in by_id]


def _visible(request: Request, workspace: Workspace, sample_id: str) -> None:
    """LookupError (404) for a sample this person may not see (not theirs under `--assign`)."""
    studio: Studio = request.app.state.studio
    identity = identity_of(request)
    if not studio.may_see(workspace, identity.person, identity.role, sample_id):
        raise LookupError(f"{sample_id!r} is not one of the samples assigned to you")


def _queue_context(request: Request, workspace: Workspace) -> dict[str, Any]:
    person = identity_of(request).person or ""
    items, dropped = queue_of(request, workspace)
    items = _assigned(request, workspace, items)
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
        "problems": [str(p) for p in workspace.reviews().problems([person])] if person else [],
        "assigned": request.app.state.studio.assignments.get(workspace.key) is not None,
    }


async def review_page(request: Request) -> Response:
    workspace = workspace_of(request)
    context = await run_in_threadpool(_queue_context, request, workspace)
    selected = request.path_params.get("sample_id") or (context["items"][0].id if context["items"] else None)
    if selected is not None and is_fragment(request) and "sample_id" in request.path_params:
        return await run_in_threadpool(_sample_fragment, request, workspace, selected)
    view = await run_in_threadpool(sample_context, request, workspace, selected) if selected else {}
    return page(request, "review.html.j2", title=f"Review · {workspace.name}", **context, **view)


async def queue_fragment(request: Request) -> Response:
    workspace = workspace_of(request)
    context = await run_in_threadpool(_queue_context, request, workspace)
    return page(request, "_queue.html.j2", **context)


def sample_context(request: Request, workspace: Workspace, sample_id: str) -> dict[str, Any]:
    sample = workspace.sample(sample_id)
    if sample is None:
        raise LookupError(f"no sample {sample_id!r} in {workspace.name}")
    _visible(request, workspace, sample_id)
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
        request, "_sample.html.j2", workspace=workspace, **sample_context(request, workspace, sample_id)
    )


async def frames_fragment(request: Request) -> Response:
    """The frames the protocol sends for a sample, as thumbnails that seek the player."""
    studio: Studio = request.app.state.studio
    workspace = workspace_of(request)
    sample = workspace.sample(request.path_params["sample_id"])
    if sample is None:
        raise LookupError(f"no sample {request.path_params['sample_id']!r}")
    _visible(request, workspace, sample.id)
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
    context = await run_in_threadpool(sample_context, request, workspace, request.path_params["sample_id"])
    decision = context["decision"]
    return JSONResponse(
        {
            **context["sample"],
            "my_decision": decision.model_dump() if decision else None,
            "reviewed_by_others": context["others"],
            "runs": context["runs"],
        }
    )


async def record_decision(request: Request, *, adjudication: bool = False) -> Response:
    """A decision on a sample (review mode), or an adjudication (adjudicate mode)."""
    workspace = workspace_of(request)
    sample = workspace.sample(request.path_params["sample_id"])
    if sample is None:
        return json_error(f"no sample {request.path_params['sample_id']!r} in {workspace.name}", 404)
    if not adjudication:
        _visible(request, workspace, sample.id)
    body = await json_body(request, DecisionBody)
    person = identity_of(request).person or ""
    try:
        decision, written = await run_in_threadpool(
            lambda: workspace.reviews().record(person, sample, body, adjudication=adjudication)
        )
    except EditError as error:
        return json_error(error.problems, 422)
    return JSONResponse({"decision": decision.model_dump(), "written": written}, 201 if written else 200)


async def api_decide(request: Request) -> Response:
    return await record_decision(request)


async def api_progress(request: Request) -> Response:
    """Progress, agreement (the kappas and each sample's) and the log lines left out: never a
    failure for everyone because one line of one person's log cannot be read."""
    workspace = workspace_of(request)
    benchmark = workspace.benchmark()
    ids = [s.id for s in benchmark.samples] if benchmark else []
    summary = await run_in_threadpool(lambda: store_summary(ids, workspace.reviews()))
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
