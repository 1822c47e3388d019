"""One studio: its settings, the folders it serves, its people, their study (assignments,
the participants' subset) and their participant runs."""

from __future__ import annotations

import hashlib
import ipaddress
import queue
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from vqakit.files import InputError
from vqakit.schema import Benchmark
from vqakit.studio._answers import AnswerSettings, ParticipantRun
from vqakit.studio._auth import Signer, key_path, load_key, read_generations, revoke
from vqakit.studio._body import MAX_BODY
from vqakit.studio._clips import WindowClips
from vqakit.studio._media import FrameCache
from vqakit.studio._people import Person
from vqakit.studio._study import Assignment, Draw, draw_subset, load_assignment, read_subset
from vqakit.studio._workspace import StudioError, Workspace, open_workspaces

T = TypeVar("T")


@dataclass
class StudioSettings:
    """What `vqakit studio` is started with."""

    folders: list[str]
    host: str = "127.0.0.1"
    port: int = 8765
    people: list[Person] = field(default_factory=list)
    audit: Path | None = None  # audit.json of `vqakit audit` (default: found beside the benchmark)
    answer_view: Literal["frames", "video"] = "frames"
    order: Literal["shuffled", "benchmark"] = "shuffled"
    limit: int | None = None  # participants answer the first N samples
    judges: dict[str, str] = field(default_factory=dict)  # judges of participants' runs
    judge_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: Path = Path("runs")  # where participants' run folders go
    review_dir: Path | None = None  # default: <benchmark>/review
    key_file: Path | None = None  # default: vqakit.studio._auth.key_path()
    link_days: float = 14.0  # links and sessions given now end after this many days
    revoke: list[str] = field(default_factory=list)  # people whose earlier links and sessions end now
    assign: int | None = None  # each sample to this many of the reviewers named in `people`
    seed: int = 0  # of the assignment and of the participants' subset
    subset: int | None = None  # participants answer this many questions drawn at random
    subset_file: Path | None = None  # ... or the questions this file lists
    max_body: int = MAX_BODY  # bytes a request may send


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Studio:
    def __init__(self, settings: StudioSettings) -> None:
        self.settings = settings
        self.loopback = is_loopback(settings.host)
        if not self.loopback and not settings.people:
            raise StudioError(
                f"--host {settings.host} is reachable from other machines: name the people who may use "
                "it (--person NAME, --participant NAME); each gets a link with their own token"
            )
        names = [p.name for p in settings.people]
        if len(set(names)) != len(names):
            raise StudioError("a person is named twice")
        self.workspaces = open_workspaces(settings.folders, settings.review_dir)
        for workspace in self.workspaces:
            benchmark = workspace.benchmark()
            if settings.answer_view == "video" and benchmark and not benchmark.card.human_video:
                raise StudioError(
                    f"--answer-view video: the card of {benchmark.card.name} does not allow people to watch "
                    "the video (human_video); they see the frames the protocol sends"
                )
        self.subsets = self._draw_subsets()
        self._check_answer_runs()
        self.assignments = self._assign()
        key_file = settings.key_file or key_path()
        try:
            for name in settings.revoke:
                revoke(key_file, name)
            generations = read_generations(key_file)
        except ValueError as error:
            raise StudioError(str(error)) from None
        roots = sorted(str(w.root.resolve()) for w in self.workspaces)
        self.signer = Signer(
            load_key(key_file),
            scope=hashlib.sha256("\n".join(roots).encode()).hexdigest()[:16],
            expires=int(time.time() + settings.link_days * 86400),
            generations=generations,
        )
        self.roles = {p.name: p.role for p in settings.people}
        self.allowed_hosts: set[str] | None = None  # set by `serve` on a loopback bind
        self._runs: dict[tuple[str, str], ParticipantRun] = {}
        self._runs_lock = threading.Lock()
        self.caches: dict[Any, Any] = {}
        self.caches_lock = threading.Lock()
        self.frames = FrameCache()
        # finished runs are scored one at a time, off the requests (a daemon thread: stopping the
        # studio never waits for it; `vqakit score` scores a run any time)
        self._to_score: queue.SimpleQueue[ParticipantRun] = queue.SimpleQueue()
        self._scorer: threading.Thread | None = None
        self.clips = WindowClips()

    def _draw_subsets(self) -> dict[str, Draw]:
        """{workspace key: the participants' questions} when a subset was asked for."""
        settings = self.settings
        if settings.subset is None and settings.subset_file is None:
            return {}
        if settings.subset is not None and settings.subset_file is not None:
            raise StudioError("--subset N and --subset-file FILE: give one of them")
        if settings.limit is not None:
            raise StudioError(
                "--limit and --subset: give one of them (a subset is drawn from every question)"
            )
        if settings.subset_file is not None:
            path = settings.subset_file
            return self._per_benchmark(lambda _, benchmark: read_subset(benchmark, path))
        return self._per_benchmark(
            lambda _, benchmark: draw_subset(benchmark, settings.subset or 0, settings.seed)
        )

    def _per_benchmark(self, make: Callable[[Workspace, Benchmark], T]) -> dict[str, T]:
        """{workspace key: make(it, its benchmark)} of the workspaces with one; what `make` refuses
        (InputError, ValueError) stops the studio, naming the benchmark."""
        found = {}
        for workspace in self.workspaces:
            benchmark = workspace.benchmark()
            if benchmark is None:
                continue
            try:
                found[workspace.key] = make(workspace, benchmark)
            except (InputError, ValueError) as error:
                raise StudioError(f"{workspace.name}: {error}") from None
        return found

    def _assign(self) -> dict[str, Assignment]:
        """{workspace key: who reviews what} with `--assign K` (read back or made and recorded)."""
        if self.settings.assign is None:
            return {}
        from vqakit.runner import benchmark_hash

        reviewers = [p.name for p in self.settings.people if p.role == "reviewer"]
        settings = self.settings
        return self._per_benchmark(
            lambda workspace, benchmark: load_assignment(
                workspace.review_dir,
                benchmark,
                benchmark_hash(benchmark),
                reviewers,
                settings.assign or 0,
                settings.seed,
            )
        )

    def _check_answer_runs(self) -> None:
        """Participants' runs are opened when they first answer: their settings (judges and
        their models) are checked now, so a mistake is said before anyone starts."""
        from vqakit.runner import RunSetupError, check_run, make_config

        for workspace in self.workspaces:
            if workspace.benchmark() is None:
                continue
            try:
                config = make_config(
                    {
                        "bench": str(workspace.root),
                        "method": "human",
                        "method_args": {"participant": "check", "view": self.settings.answer_view},
                        "judges": self.settings.judges,
                        "judge_args": self.settings.judge_args,
                        "limit": self.settings.limit,
                    }
                )
                check_run(config, workspace.benchmark())
            except (RunSetupError, ValueError) as error:
                raise StudioError(f"answer mode of {workspace.name}: {error}") from None

    def workspace(self, key: str | None) -> Workspace | None:
        if not key:
            return self.workspaces[0]
        return next((w for w in self.workspaces if w.key == key), None)

    def person_by_token(self, token: str | None) -> tuple[Person, int] | None:
        """(the person, when their link ends) of a valid token of this studio, or None."""
        found = self.signer.read_token(token or "", self.roles)
        if found is None:
            return None
        name, expires = found
        return next(p for p in self.settings.people if p.name == name), expires

    def knows(self, name: str | None, role: str) -> bool:
        """Whether a session's person may still use this studio: on a loopback bind any named
        person; elsewhere only the people it was started with, in their role."""
        if name is None:
            return self.loopback
        if self.loopback and not any(p.name == name for p in self.settings.people):
            return True
        return any(p.name == name and p.role == role for p in self.settings.people)

    def participant_run(self, workspace: Workspace, person: str) -> ParticipantRun:
        key = (workspace.key, person)
        with self._runs_lock:
            if key not in self._runs:
                benchmark = workspace.benchmark()
                if benchmark is None:
                    raise StudioError(f"{workspace.root} has no questions to answer yet")
                settings = self.settings
                self._runs[key] = ParticipantRun(
                    workspace.bench,
                    benchmark,
                    person,
                    AnswerSettings(
                        view=settings.answer_view,
                        order=settings.order,
                        limit=settings.limit,
                        subset=self.subsets.get(workspace.key),
                        judges=settings.judges,
                        judge_args=settings.judge_args,
                        runs=settings.runs,
                    ),
                )
            return self._runs[key]

    def links(self, port: int) -> list[tuple[Person, str]]:
        """Each person's link (with their token)."""
        host = self.settings.host.strip("[]")
        if host in ("0.0.0.0", "::"):
            host = socket.gethostname()
        shown = f"[{host}]" if ":" in host else host
        return [
            (p, f"http://{shown}:{port}/?token={self.signer.token(p.name, p.role)}")
            for p in self.settings.people
        ]

    def score_later(self, run: ParticipantRun) -> None:
        """Score a finished participant's run in the background (its page shows the outcome)."""
        run.scoring = "running"
        self._to_score.put(run)
        with self._runs_lock:
            if self._scorer is None:
                self._scorer = threading.Thread(target=self._score_runs, name="vqakit-score", daemon=True)
                self._scorer.start()

    def _score_runs(self) -> None:
        while True:
            self._to_score.get().score()

    def answer_problems(self, workspace: Workspace) -> list[str]:
        """`FILE:LINE: reason` of the lines of participants' answer logs on this benchmark that
        cannot be read: of the runs opened in this studio and of the participants it was
        started with (read only)."""
        from vqakit.methods import HUMAN
        from vqakit.runner import default_run_folder
        from vqakit.studio._answers import answer_log

        benchmark = workspace.benchmark()
        if benchmark is None:
            return []
        with self._runs_lock:
            folders = {run.folder for (key, _), run in self._runs.items() if key == workspace.key}
        for person in self.settings.people:
            if person.role == "participant":
                folders.add(default_run_folder(benchmark, HUMAN, root=self.settings.runs, suffix=person.name))
        return [line for folder in sorted(folders) for line in answer_log(folder).problems()]

    def may_see(self, workspace: Workspace, person: str | None, role: str, sample_id: str) -> bool:
        """Whether a person may see this sample (its page, frames, clip): a participant only
        the question they are answering now; with `--assign`, a reviewer only their samples."""
        if person is None:
            return False
        if role == "participant":
            if workspace.benchmark() is None:
                return False
            current = self.participant_run(workspace, person).next_sample()
            return current is not None and current.id == sample_id
        assignment = self.assignments.get(workspace.key)
        if role == "reviewer" and assignment is not None and not assignment.allowed(person, sample_id):
            with self._runs_lock:  # a reviewer answering questions sees the one they answer
                run = self._runs.get((workspace.key, person))
            current = run.next_sample() if run is not None else None
            return current is not None and current.id == sample_id
        return True
