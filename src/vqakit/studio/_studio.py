"""One studio: its settings, the folders it serves, its people, and their participant runs."""

from __future__ import annotations

import ipaddress
import socket
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from vqakit.studio._answers import AnswerSettings, ParticipantRun
from vqakit.studio._auth import Signer, load_key
from vqakit.studio._media import FrameCache
from vqakit.studio._people import Person
from vqakit.studio._workspace import StudioError, Workspace, open_workspaces


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
        self._check_answer_runs()
        self.signer = Signer(load_key(settings.key_file))
        self.tokens = {self.signer.token(p.name, p.role): p for p in settings.people}
        self.allowed_hosts: set[str] | None = None  # set by `serve` on a loopback bind
        self._runs: dict[tuple[str, str], ParticipantRun] = {}
        self._runs_lock = threading.Lock()
        self.caches: dict[Any, Any] = {}
        self.frames = FrameCache()

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

    def person_by_token(self, token: str | None) -> Person | None:
        return self.tokens.get(token or "")

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
