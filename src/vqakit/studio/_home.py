"""The home page: each folder of the studio with its modes, the review's progress and agreement
(per person, the kappas, and each sample several people reviewed), and every line of a people's
log that cannot be read (review, answer and annotation logs: named with file and line for the
people running the study; the rest of the page is shown from the lines that can be read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from vqakit.studio._agreement import store_summary
from vqakit.studio._guard import identity_of
from vqakit.studio._render import page
from vqakit.studio._studio import Studio
from vqakit.studio._workspace import Workspace

SHOWN_SAMPLES = 100  # rows of the per-sample agreement table (all: `vqakit review --json`)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _shown_path(path: Path, workspace: Workspace) -> str:
    """A file of the study as its people know it: relative to the benchmark folder if inside."""
    try:
        return str(path.resolve().relative_to(workspace.root.resolve()))
    except ValueError:
        return str(path)


def _entry(studio: Studio, workspace: Workspace) -> dict[str, Any]:
    benchmark = workspace.benchmark()
    entry: dict[str, Any] = {
        "workspace": workspace,
        "summary": None,
        "modes": workspace.modes(),
        "version": None,
        "assignment": None,
        "subset": None,
        "samples": [],
        "more_samples": 0,
    }
    problems = [str(p) for p in workspace.annotation.problems()] if workspace.annotation else []
    if benchmark is not None:
        entry["version"] = benchmark.card.version
        summary = store_summary([s.id for s in benchmark.samples], workspace.reviews())
        problems += summary.problems + [str(p) for p in studio.answer_problems(workspace)]
        entry["summary"] = summary
        entry["people"] = [[p.person, p.reviewed, p.keep, p.drop, p.edit] for p in summary.people]
        entry["agreement"] = [
            [", ".join(a.people), f"{a.method}'s kappa", a.n, _number(a.kappa), _number(a.observed)]
            for a in summary.agreement
        ]
        ordered = sorted(summary.per_sample, key=lambda s: (s.status == "agree", s.agreement))
        entry["samples"] = [
            [
                s.sample_id,
                "; ".join(f"{person}: {shown}" for person, shown in s.votes.items()),
                _number(s.agreement),
                {"agree": "agree", "decision": "differ by decision", "edit": "differ by edit"}[s.status],
                s.adjudication or ("" if s.status == "agree" else "not yet"),
            ]
            for s in ordered[:SHOWN_SAMPLES]
        ]
        entry["more_samples"] = max(0, len(ordered) - SHOWN_SAMPLES)
        assignment = studio.assignments.get(workspace.key)
        if assignment is not None:
            entry["assignment"] = {
                "per_sample": assignment.per_sample,
                "seed": assignment.seed,
                "file": _shown_path(assignment.path, workspace),
                "people": [[person, len(ids)] for person, ids in sorted(assignment.queues.items())],
            }
        draw = studio.subsets.get(workspace.key)
        entry["subset"] = draw.how if draw is not None else None
    entry["problems"] = problems
    return entry


async def home(request: Request) -> Response:
    identity = identity_of(request)
    if identity.person is None:
        return RedirectResponse("/login", 303)
    if identity.role == "participant":
        return RedirectResponse("/answer", 303)
    studio: Studio = request.app.state.studio
    entries = await run_in_threadpool(lambda: [_entry(studio, w) for w in studio.workspaces])
    return page(request, "home.html.j2", title="vqakit studio", entries=entries)
