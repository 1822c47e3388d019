"""Reading and checking a benchmark folder.

Layout (paths relative to the folder; media may live anywhere inside it, never outside):

    benchmark.yaml            the card (`BenchmarkCard`)
    samples.jsonl             one `Sample` per line
    corpus/clips.jsonl        optional retrieval clips (`Clip`)
    corpus/passages.jsonl     optional retrieval passages (`Passage`)

Every problem is reported as `FILE:LINE: field: what is wrong` (`Problem`); checking never
raises for bad input. Checks that need to open media go through a `MediaChecker`, which the
caller supplies (the video layer sits above this one).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from vqakit.schema._card import BenchmarkCard
from vqakit.schema._checks import Corpora, sample_checks
from vqakit.schema._corpus import Clip, Passage
from vqakit.schema._sample import Sample, VideoRef
from vqakit.schema._trace import find_times

CARD = "benchmark.yaml"
SAMPLES = "samples.jsonl"
CLIPS = "corpus/clips.jsonl"
PASSAGES = "corpus/passages.jsonl"

Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int  # 1-based; 0 when the problem concerns the whole file
    field: str  # dotted path such as "videos.0.start_s", or "-"
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.field}: {self.message}"


class MediaChecker(Protocol):
    """Opens media for the checks that need it; each method raises with a readable message."""

    def video_duration(self, path: Path) -> float: ...

    def check_subtitles(self, path: Path) -> None: ...

    def check_image(self, path: Path) -> None: ...


@dataclass
class Benchmark:
    """A loaded benchmark folder."""

    root: Path
    card: BenchmarkCard
    samples: list[Sample]
    clips: dict[str, Clip] = field(default_factory=dict)
    passages: dict[str, Passage] = field(default_factory=dict)
    sample_lines: dict[str, int] = field(default_factory=dict)  # sample id -> line in samples.jsonl

    def media_path(self, relative: str) -> Path:
        return self.root / relative


class BenchmarkError(Exception):
    """A benchmark folder has problems; `problems` lists them all."""

    def __init__(self, root: Path, problems: list[Problem]) -> None:
        self.root = root
        self.problems = problems
        listing = "\n".join(str(problem) for problem in problems[:20])
        more = f"\n... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{root}: {len(problems)} problem(s)\n{listing}{more}")


_UNION_TAG = re.compile(r"[\[\-]|^(int|str|float|bool|list|dict|tuple|none|constrained-str)$")


def _problems_from(error: ValidationError, file: str, line: int, prefix: str = "") -> list[Problem]:
    problems: dict[str, Problem] = {}
    for detail in error.errors():
        loc = [str(part) for part in detail["loc"] if not _UNION_TAG.search(str(part))]
        message = str(detail["msg"]).removeprefix("Value error, ")
        if match := re.match(r"^([a-z_]+): (.*)$", message, re.DOTALL):
            loc.append(match[1])
            message = match[2]
        if detail["type"] == "missing":
            message = "missing required field"
        elif detail["type"] == "extra_forbidden":
            message = "unknown field"
        name = ".".join(([prefix] if prefix else []) + loc) or "-"
        problems.setdefault(name, Problem(file, line, name, message))
    return list(problems.values())


def _yaml_line(node: yaml.Node | None, loc: list[str]) -> int:
    """Line of the YAML node at `loc` (or of its deepest existing parent)."""
    line = 1
    for part in loc:
        if isinstance(node, yaml.MappingNode):
            match = next((pair for pair in node.value if pair[0].value == part), None)
            if match is None:
                break
            line, node = match[0].start_mark.line + 1, match[1]
        elif isinstance(node, yaml.SequenceNode) and part.isdigit() and int(part) < len(node.value):
            node = node.value[int(part)]
            line = node.start_mark.line + 1
        else:
            break
    return line


def read_card(root: Path) -> tuple[BenchmarkCard | None, list[Problem]]:
    path = root / CARD
    if not path.is_file():
        return None, [Problem(CARD, 0, "-", "file not found: a benchmark folder needs benchmark.yaml")]
    text = path.read_text(encoding="utf-8", errors="replace")
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        return None, [Problem(CARD, line, "-", f"not valid YAML ({getattr(error, 'problem', error)})")]
    if not isinstance(data, dict):
        return None, [Problem(CARD, 1, "-", "must be a YAML mapping of card fields")]
    try:
        return BenchmarkCard.model_validate(data), []
    except ValidationError as error:
        problems = _problems_from(error, CARD, 0)
        return None, [
            Problem(CARD, _yaml_line(node, p.field.split(".")), p.field, p.message) for p in problems
        ]


def read_jsonl(
    root: Path, relative: str, model: type[Model]
) -> Iterator[tuple[int, Model | None, list[Problem]]]:
    """(line number, parsed record or None, problems) for each non-blank line."""
    with open(root / relative, encoding="utf-8", errors="replace") as handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            try:
                data: Any = json.loads(raw)
            except json.JSONDecodeError as error:
                yield (
                    number,
                    None,
                    [Problem(relative, number, "-", f"malformed JSON ({error.msg} at column {error.colno})")],
                )
                continue
            if not isinstance(data, dict):
                yield number, None, [Problem(relative, number, "-", "each line must be a JSON object")]
                continue
            try:
                yield number, model.model_validate(data), []
            except ValidationError as error:
                yield number, None, _problems_from(error, relative, number)


def safe_media_path(root: Path, relative: str) -> Path | None:
    """The media file's path, or None when `relative` is absolute or leaves the folder."""
    if Path(relative).is_absolute() or relative.startswith("~"):
        return None
    resolved = (root / relative).resolve()
    if not resolved.is_relative_to(root.resolve()):
        return None
    return root / relative


def _records(
    root: Path, relative: str, model: type[Model], problems: list[Problem]
) -> dict[str, tuple[int, Model]]:
    found: dict[str, tuple[int, Model]] = {}
    for line, record, issues in read_jsonl(root, relative, model):
        problems.extend(issues)
        if record is None:
            continue
        record_id = record.id  # type: ignore[attr-defined]
        if record_id in found:
            problems.append(
                Problem(
                    relative, line, "id", f"duplicate id {record_id!r} (first on line {found[record_id][0]})"
                )
            )
            continue
        found[record_id] = (line, record)
    return found


class _MediaChecks:
    """Checks of files that samples and clips point at, with each video probed once."""

    def __init__(self, root: Path, checker: MediaChecker | None, problems: list[Problem]) -> None:
        self.root, self.checker, self.problems = root, checker, problems
        self.durations: dict[str, float | None] = {}

    def _file(self, file: str, line: int, name: str, relative: str) -> Path | None:
        path = safe_media_path(self.root, relative)
        if path is None:
            self.problems.append(Problem(file, line, name, f"path {relative!r} escapes the benchmark folder"))
            return None
        if not path.is_file():
            self.problems.append(Problem(file, line, name, f"missing media file {relative!r}"))
            return None
        return path

    def video(self, file: str, line: int, name: str, ref: VideoRef) -> float | None:
        path = self._file(file, line, f"{name}.path", ref.path)
        if path is None or self.checker is None:
            return None
        if ref.path not in self.durations:
            try:
                self.durations[ref.path] = self.checker.video_duration(path)
            except Exception as error:
                self.durations[ref.path] = None
                self.problems.append(Problem(file, line, f"{name}.path", f"unreadable video: {error}"))
        duration = self.durations[ref.path]
        if duration is not None:
            for key in ("start_s", "end_s"):
                value = getattr(ref, key)
                if value is not None and value > duration + 1e-3:
                    self.problems.append(
                        Problem(
                            file,
                            line,
                            f"{name}.{key}",
                            f"{value:g}s is beyond the video's duration ({duration:.3f}s)",
                        )
                    )
        return duration

    def other(self, file: str, line: int, name: str, relative: str, kind: str) -> None:
        path = self._file(file, line, name, relative)
        if path is None or self.checker is None:
            return
        try:
            self.checker.check_subtitles(path) if kind == "subtitles" else self.checker.check_image(path)
        except Exception as error:
            self.problems.append(Problem(file, line, name, f"unreadable {kind}: {error}"))


def _beyond(file: str, line: int, name: str, time_s: float, duration: float | None) -> Problem | None:
    if duration is not None and time_s > duration + 1e-3:
        return Problem(file, line, name, f"{time_s:g}s is beyond the video's duration ({duration:.3f}s)")
    return None


def _check_sample(
    line: int, sample: Sample, media: _MediaChecks, corpora: Corpora, problems: list[Problem]
) -> None:
    durations = [media.video(SAMPLES, line, f"videos.{i}", ref) for i, ref in enumerate(sample.videos)]
    if not sample.videos and not sample.gold_clips:
        problems.append(Problem(SAMPLES, line, "videos", "a sample needs videos, or gold_clips to retrieve"))
    if sample.subtitles is not None:
        media.other(SAMPLES, line, "subtitles", sample.subtitles, "subtitles")
    for t, track in enumerate(sample.objects):
        if track.video >= len(sample.videos):
            problems.append(
                Problem(SAMPLES, line, f"objects.{t}.video", f"no video {track.video} in this sample")
            )
            continue
        for p, point in enumerate(track.points):
            name = f"objects.{t}.points.{p}"
            if problem := _beyond(SAMPLES, line, f"{name}.time_s", point.time_s, durations[track.video]):
                problems.append(problem)
            if point.mask is not None:
                media.other(SAMPLES, line, f"{name}.mask", point.mask, "mask")
    if sample.reasoning and sample.videos:
        for start, end in find_times(sample.reasoning):
            if problem := _beyond(SAMPLES, line, "reasoning", max(start, end), durations[0]):
                problems.append(problem)
                break
    for key, known, corpus in (
        ("gold_clips", corpora.clips, CLIPS),
        ("gold_passages", corpora.passages, PASSAGES),
    ):
        for item in getattr(sample, key):
            if item not in known:
                problems.append(Problem(SAMPLES, line, key, f"id {item!r} is not in {corpus}"))
    for check in sample_checks():
        problems += [Problem(SAMPLES, line, name, message) for name, message in check(sample, corpora)]


def check_folder(
    root: str | Path, media: MediaChecker | None = None
) -> tuple[Benchmark | None, list[Problem]]:
    """Read and check a benchmark folder; the benchmark is None when the card or samples fail."""
    root = Path(root)
    if not root.is_dir():
        return None, [Problem(str(root), 0, "-", "not a benchmark folder (no such directory)")]
    problems: list[Problem] = []
    card, card_problems = read_card(root)
    problems.extend(card_problems)
    media_checks = _MediaChecks(root, media, problems)
    clips: dict[str, tuple[int, Clip]] = {}
    passages: dict[str, tuple[int, Passage]] = {}
    if (root / CLIPS).is_file():
        clips = _records(root, CLIPS, Clip, problems)
        for clip_line, clip in clips.values():
            media_checks.video(CLIPS, clip_line, "video", clip.video)
    if (root / PASSAGES).is_file():
        passages = _records(root, PASSAGES, Passage, problems)
    if not (root / SAMPLES).is_file():
        problems.append(Problem(SAMPLES, 0, "-", "file not found: a benchmark folder needs samples.jsonl"))
        return None, problems
    samples = _records(root, SAMPLES, Sample, problems)
    if not samples and not any(p.file == SAMPLES for p in problems):
        problems.append(Problem(SAMPLES, 0, "-", "no samples"))
    corpora = Corpora(
        clips={key: clip for key, (_, clip) in clips.items()},
        passages={key: passage for key, (_, passage) in passages.items()},
    )
    for line, sample in samples.values():
        _check_sample(line, sample, media_checks, corpora, problems)
    rank = {CARD: 0, CLIPS: 1, PASSAGES: 2, SAMPLES: 3}
    problems.sort(key=lambda problem: (rank.get(problem.file, 4), problem.line))
    if card is None:
        return None, problems
    benchmark = Benchmark(
        root=root,
        card=card,
        samples=[sample for _, sample in samples.values()],
        clips=dict(corpora.clips),
        passages=dict(corpora.passages),
        sample_lines={key: line for key, (line, _) in samples.items()},
    )
    return benchmark, problems


def load_folder(root: str | Path, media: MediaChecker | None = None) -> Benchmark:
    """Load a benchmark folder, raising `BenchmarkError` listing every problem found."""
    benchmark, problems = check_folder(root, media)
    if problems or benchmark is None:
        raise BenchmarkError(Path(root), problems)
    return benchmark
