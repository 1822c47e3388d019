"""Adjudicate mode: the samples reviewers disagree on (by decision: keep, drop, edit; or by edit:
different new values), each with every reviewer's vote, for an adjudicator (`--adjudicator NAME`)
whose decision is final for `vqakit review apply`. Adjudications are lines of the adjudicator's
own log, `review/<name>.jsonl`, marked `"adjudication": true` (not votes: no kappa counts them)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from vqakit.studio._agreement import SampleAgreement, per_sample
from vqakit.studio._render import is_fragment, page
from vqakit.studio._review_routes import record_decision, sample_context, workspace_of
from vqakit.studio._workspace import Workspace

STATUS = {"decision": "differ by decision", "edit": "differ by edit"}


def disagreements(workspace: Workspace) -> list[SampleAgreement]:
    """The samples two or more reviewers decided differently, in benchmark order."""
    benchmark = workspace.benchmark()
    if benchmark is None:
        return []
    store = workspace.reviews()
    found = per_sample([s.id for s in benchmark.samples], store.latest(), store.adjudications())
    return [s for s in found if s.status != "agree"]


def _context(request: Request, workspace: Workspace, sample_id: str | None) -> dict[str, Any]:
    listed = disagreements(workspace)
    by_id = {s.sample_id: s for s in listed}
    if sample_id is None and listed:
        sample_id = next((s.sample_id for s in listed if not s.adjudication), listed[0].sample_id)
    context: dict[str, Any] = {
        "workspace": workspace,
        "listed": listed,
        "labels": STATUS,
        "questions": {s.sample_id: _question(workspace, s.sample_id) for s in listed},
    }
    if sample_id is not None:
        if sample_id not in by_id:
            raise LookupError(f"{sample_id!r} is not a sample its reviewers disagree on")
        context.update(sample_context(request, workspace, sample_id))
        context["votes"] = by_id[sample_id]
    return context


def _question(workspace: Workspace, sample_id: str) -> str:
    sample = workspace.sample(sample_id)
    return sample.question if sample else ""


async def adjudicate_page(request: Request) -> Response:
    workspace = workspace_of(request)
    sample_id = request.path_params.get("sample_id")
    context = await run_in_threadpool(_context, request, workspace, sample_id)
    if sample_id is not None and is_fragment(request):
        return page(request, "_adjudicate_sample.html.j2", **context)
    return page(request, "adjudicate.html.j2", title=f"Adjudicate · {workspace.name}", **context)


async def api_disagreements(request: Request) -> Response:
    workspace = workspace_of(request)
    listed = await run_in_threadpool(disagreements, workspace)
    return JSONResponse({"bench": workspace.key, "disagreements": [asdict(s) for s in listed]})


async def api_adjudicate(request: Request) -> Response:
    workspace = workspace_of(request)
    listed = await run_in_threadpool(disagreements, workspace)
    if request.path_params["sample_id"] not in {s.sample_id for s in listed}:
        raise LookupError(f"{request.path_params['sample_id']!r} is not a sample its reviewers disagree on")
    return await record_decision(request, adjudication=True)


ROUTES = [
    Route("/adjudicate", adjudicate_page),
    Route("/adjudicate/sample/{sample_id:path}", adjudicate_page),
    Route("/api/disagreements", api_disagreements),
    Route("/api/adjudicate/{sample_id:path}", api_adjudicate, methods=["POST"]),
]
