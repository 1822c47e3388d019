"""The folders a studio serves: benchmarks (review and answer modes), the run folders opened
beside them (their answers shown to reviewers), and folders of videos being annotated.

Every folder is read through the same readers as the rest of vqakit (`load_benchmark`,
`RunFolder`); an annotated folder is loaded again whenever its samples.jsonl changes.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from vqakit.benchmarks import BUILT_IN_NAMES, load_benchmark, resolve_benchmark
from vqakit.files import slug
from vqakit.runner import benchmark_hash
from vqakit.runs import CONFIG, RunFolder, RunFolderError
from vqakit.schema import CARD, SAMPLES, Benchmark, Sample
from vqakit.studio._annotate import AnnotationFolder, annotatable
from vqakit.studio._review import ReviewStore, review_folder


class StudioError(ValueError):
    """A folder the studio cannot serve, said before it starts."""


@dataclass
class Workspace:
    key: str  # in URLs: ?bench=KEY
    bench: str  # as given (a shipped benchmark's name, or a folder)
    root: Path
    review_dir: Path
    runs: list[RunFolder] = field(default_factory=list)
    annotation: AnnotationFolder | None = None
    _loaded: tuple[tuple[int, int], Benchmark] | None = None
    _reviews: ReviewStore | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _stamp(self) -> tuple[int, int]:
        path = self.root / SAMPLES
        if not path.exists() or not (self.root / CARD).exists():
            return (0, 0)
        stat = path.stat()
        return (stat.st_mtime_ns, stat.st_size)

    def benchmark(self) -> Benchmark | None:
        """The benchmark as it is on disk now (None for a folder of videos with no question yet)."""
        with self._lock:
            stamp = self._stamp()
            if stamp == (0, 0):
                return None
            if self._loaded is None or self._loaded[0] != stamp:
                self._loaded = (stamp, load_benchmark(self.root))
                self._reviews = None
            return self._loaded[1]

    def sample(self, sample_id: str) -> Sample | None:
        benchmark = self.benchmark()
        return next((s for s in benchmark.samples if s.id == sample_id), None) if benchmark else None

    def reviews(self) -> ReviewStore:
        benchmark = self.benchmark()
        if benchmark is None:
            raise StudioError(f"{self.root} has no questions to review yet")
        with self._lock:
            if self._reviews is None:
                self._reviews = ReviewStore(self.review_dir, benchmark_hash(benchmark))
            return self._reviews

    @property
    def name(self) -> str:
        benchmark = self.benchmark()
        return benchmark.card.name if benchmark else self.root.name

    def modes(self) -> list[str]:
        found = ["review", "answer"] if self.benchmark() is not None else []
        return found + (["annotate"] if self.annotation is not None else [])


def _run_of(path: Path) -> RunFolder | None:
    if not (path / CONFIG).is_file():
        return None
    try:
        run = RunFolder(path)
        run.config  # noqa: B018 - read now, so a broken config is said before the studio starts
    except RunFolderError as error:
        raise StudioError(str(error)) from None
    return run


def open_workspaces(folders: list[str], review_dir: Path | None = None) -> list[Workspace]:
    """A workspace per benchmark or folder of videos named in `folders` (runs join their
    benchmark's workspace). Raises StudioError naming a folder it cannot serve."""
    found: dict[Path, Workspace] = {}
    for given in folders:
        run = _run_of(Path(given))
        bench = str(run.benchmark_location()) if run else given
        root = resolve_benchmark(bench)
        if not root.is_dir():
            raise StudioError(f"{given}: not a benchmark, a run or a folder of videos")
        key = root.resolve()
        if key not in found:
            found[key] = _workspace(bench, root, review_dir, taken={w.key for w in found.values()})
        if run is not None:
            found[key].runs.append(run)
    if not found:
        raise StudioError("name at least one benchmark, run or folder of videos")
    return list(found.values())


def _workspace(bench: str, root: Path, review_dir: Path | None, taken: set[str]) -> Workspace:
    has_card = (root / CARD).is_file()
    annotation = None
    if annotatable(root) and not (has_card and str(bench) in BUILT_IN_NAMES):
        annotation = AnnotationFolder(root)
    elif not has_card:
        raise StudioError(f"{root}: not a benchmark folder (no {CARD}) and not a folder of videos")
    key = slug(root.resolve().name, 40, empty="bench")
    base, number = key, 2
    while key in taken:
        key, number = f"{base}-{number}", number + 1
    workspace = Workspace(
        key, str(bench), root, review_folder(bench, root, review_dir), annotation=annotation
    )
    if has_card and (root / SAMPLES).exists():
        try:
            workspace.benchmark()
        except Exception as error:  # a BenchmarkError lists every problem
            raise StudioError(str(error)) from None
    if annotation is not None and not annotation.videos():
        raise StudioError(f"{root}: no video files to annotate and no benchmark")
    return workspace
