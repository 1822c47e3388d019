"""Reading and checking a benchmark folder.

Layout (paths relative to the folder; media may live anywhere inside it, never outside):

    benchmark.yaml            the card (`BenchmarkCard`)
    samples.jsonl             one `Sample` per line
    corpus/clips.jsonl        optional retrieval clips (`Clip`)
    corpus/passages.jsonl     optional retrieval passages (`Passage`)

Every problem is reported as `FILE:LINE: field: what is wrong` (`Problem`), always on one line;
checking never raises for bad input, however hostile (bytes that are not UTF-8, NUL characters,
JSON nested thousands of levels deep, numbers too large for 64 bits). Checks that need to open
media go through a `MediaChecker`, which the caller supplies (see `_media_checks`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from vqakit.files import (
    MAX_DEPTH,
    InputError,
    collector_paused,
    decode,
    find_bad_byte,
    find_unusable,
    parse_table,
    read_bytes,
    yaml_error_line,
)
from vqakit.schema._card import BenchmarkCard
from vqakit.schema._checks import Corpora, sample_checks
from vqakit.schema._corpus import Clip, Passage
from vqakit.schema._media_checks import MediaChecker as MediaChecker
from vqakit.schema._media_checks import MediaChecks, media_path_problem
from vqakit.schema._media_checks import safe_media_path as safe_media_path
from vqakit.schema._problem import Problem, _problems_from
from vqakit.schema._sample import Sample
from vqakit.schema._sample_stream import (
    Fallback,
    SampleLines,
    StreamedSamples,
    cache_key,
    load_index,
    save_index,
    stream_samples,
)

CARD = "benchmark.yaml"
SAMPLES = "samples.jsonl"
CLIPS = "corpus/clips.jsonl"
PASSAGES = "corpus/passages.jsonl"

Model = TypeVar("Model", bound=BaseModel)


@dataclass
class Benchmark:
    """A loaded benchmark folder."""

    root: Path
    card: BenchmarkCard
    samples: Sequence[Sample]  # a list, or for a large benchmark a `SampleFile` (read as used)
    clips: dict[str, Clip] = field(default_factory=dict)
    passages: dict[str, Passage] = field(default_factory=dict)
    sample_lines: Mapping[str, int] = field(default_factory=dict)  # sample id -> line in samples.jsonl

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


def _outside(root: Path, relative: str) -> Problem | None:
    """A problem when a data file of the folder is a link to a file outside it (never read)."""
    if problem := media_path_problem(root, relative):
        return Problem(relative, 0, "-", f"the file {problem}; it is not read")
    return None


def read_card(root: Path) -> tuple[BenchmarkCard | None, list[Problem]]:
    path = root / CARD
    if not path.is_file():
        return None, [Problem(CARD, 0, "-", "file not found: a benchmark folder needs benchmark.yaml")]
    if outside := _outside(root, CARD):
        return None, [outside]
    try:
        text = decode(read_bytes(path), CARD)
    except InputError as error:
        return None, [Problem(CARD, 0, "-", str(error).removeprefix(f"{path}: "))]
    if found := find_bad_byte(text):
        return None, [Problem(CARD, found[0], "-", found[1])]
    try:
        node = yaml.compose(text)
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        line = yaml_error_line(text, error)
        return None, [Problem(CARD, line, "-", f"not valid YAML ({getattr(error, 'problem', error)})")]
    except RecursionError:
        return None, [Problem(CARD, 0, "-", f"not usable YAML: nested deeper than {MAX_DEPTH} levels")]
    if not isinstance(data, dict):
        return None, [Problem(CARD, 1, "-", "must be a YAML mapping of card fields")]
    if found := find_unusable(data):
        return None, [Problem(CARD, _yaml_line(node, found[0].split(".")), *found)]
    try:
        return BenchmarkCard.model_validate(data), []
    except ValidationError as error:
        problems = _problems_from(error, CARD, 0)
        return None, [
            Problem(CARD, _yaml_line(node, p.field.split(".")), p.field, p.message) for p in problems
        ]


def _parse_lines(
    relative: str, text: str, model: type[Model]
) -> Iterator[tuple[int, Model | None, list[Problem]]]:
    for record in parse_table(text, relative, "jsonl").records:
        line = record.line or 0
        if record.problem is not None:
            yield line, None, [Problem(relative, line, record.problem.field, record.problem.message)]
            continue
        try:
            yield line, model.model_validate(record.data), []
        except ValidationError as error:
            yield line, None, _problems_from(error, relative, line)


def read_jsonl(
    root: Path, relative: str, model: type[Model]
) -> Iterator[tuple[int, Model | None, list[Problem]]]:
    """(line number, parsed record or None, problems) for each non-blank line."""
    if outside := _outside(root, relative):
        yield 0, None, [outside]
        return
    try:
        text = decode(read_bytes(root / relative), relative)
    except InputError as error:
        yield 0, None, [Problem(relative, 0, "-", str(error).removeprefix(f"{root / relative}: "))]
        return
    yield from _parse_lines(relative, text, model)


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


def _check_sample(
    line: int, sample: Sample, media: MediaChecks, corpora: Corpora, problems: list[Problem]
) -> None:
    if not sample.videos and not sample.gold_clips:
        problems.append(Problem(SAMPLES, line, "videos", "a sample needs videos, or gold_clips to retrieve"))
    media.sample(SAMPLES, line, sample)
    for key, known, corpus in (
        ("gold_clips", corpora.clips, CLIPS),
        ("gold_passages", corpora.passages, PASSAGES),
    ):
        for item in getattr(sample, key):
            if item not in known:
                problems.append(Problem(SAMPLES, line, key, f"id {item!r} is not in {corpus}"))
    for check in sample_checks():
        try:
            found = list(check(sample, corpora))
        except Exception as error:  # a plug-in's bug must not hide the other problems
            failed = f"check {getattr(check, '__qualname__', check)} failed: {type(error).__name__}: {error}"
            problems.append(Problem(SAMPLES, line, "-", failed))
            continue
        problems += [Problem(SAMPLES, line, name, message) for name, message in found]


def _index_key(root: Path, linked: bool) -> str | None:
    """The key of the cached index of this folder's samples (see `_sample_stream`)."""
    versions = []
    for name in (CLIPS, PASSAGES):
        try:
            info = (root / name).stat()
            versions.append(f"{name}:{info.st_size}:{info.st_mtime_ns}:{info.st_ino}")
        except OSError:
            versions.append(f"{name}:-")
    return cache_key(root, SAMPLES, [*versions, f"linked={linked}"])


def _samples(
    root: Path, corpora: Corpora, media: MediaChecks, problems: list[Problem], *, cached: bool, linked: bool
) -> StreamedSamples:
    """The folder's samples, their problems added to `problems`: from the cached index of a
    large file whose media are still where they were (`cached`), else read line by line."""
    if outside := _outside(root, SAMPLES):
        problems.append(outside)
        return StreamedSamples([], {})
    key = _index_key(root, linked) if cached else None
    hit = load_index(key, root / SAMPLES) if key else None
    if hit is not None and all(media.usable(path) for path in hit[1]):
        return StreamedSamples(hit[0], SampleLines(hit[0]))

    def check(line: int, sample: Sample) -> list[Problem]:
        start = len(problems)  # the media checks report into `problems`
        _check_sample(line, sample, media, corpora, problems)
        found = problems[start:]
        del problems[start:]
        return found

    try:
        found = stream_samples(root, SAMPLES, check, problems)
        found.key = key
        return found
    except Fallback:
        pass
    except OSError as error:
        problems.append(Problem(SAMPLES, 0, "-", f"cannot be read ({error.strerror or error})"))
        return StreamedSamples([], {})
    records = _records(root, SAMPLES, Sample, problems)
    for line, sample in records.values():
        _check_sample(line, sample, media, corpora, problems)
    samples = [sample for _, sample in records.values()]
    return StreamedSamples(samples, {key: line for key, (line, _) in records.items()})


@collector_paused()  # 100,000 samples: half the time went to the garbage collector
def check_folder(
    root: str | Path, media: MediaChecker | None = None, *, missing_media_ok: bool = False
) -> tuple[Benchmark | None, list[Problem]]:
    """Read and check a benchmark folder; the benchmark is None when the card or samples fail.
    `missing_media_ok`: a missing media file is not a problem (see `MediaChecks`)."""
    root = Path(root)
    if not root.is_dir():
        return None, [Problem(str(root), 0, "-", "not a benchmark folder (no such directory)")]
    problems: list[Problem] = []
    card, card_problems = read_card(root)
    problems.extend(card_problems)
    media_checks = MediaChecks(
        root,
        media,
        lambda *where: problems.append(Problem(*where)),
        missing_ok=missing_media_ok,
        linked=card is not None and card.linked_media,
    )
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
    corpora = Corpora(
        clips={key: clip for key, (_, clip) in clips.items()},
        passages={key: passage for key, (_, passage) in passages.items()},
    )
    found = _samples(root, corpora, media_checks, problems, cached=media is None, linked=media_checks.linked)
    if not found.samples and not any(p.file == SAMPLES for p in problems):
        problems.append(Problem(SAMPLES, 0, "-", "no samples"))
    if not problems and found.index is not None and found.key:
        save_index(found.key, found)
    rank = {CARD: 0, CLIPS: 1, PASSAGES: 2, SAMPLES: 3}
    problems.sort(key=lambda problem: (rank.get(problem.file, 4), problem.line))
    if card is None:
        return None, problems
    benchmark = Benchmark(
        root=root,
        card=card,
        samples=found.samples,
        clips=dict(corpora.clips),
        passages=dict(corpora.passages),
        sample_lines=found.lines,
    )
    return benchmark, problems


def load_folder(
    root: str | Path, media: MediaChecker | None = None, *, missing_media_ok: bool = False
) -> Benchmark:
    """Load a benchmark folder, raising `BenchmarkError` listing every problem found."""
    benchmark, problems = check_folder(root, media, missing_media_ok=missing_media_ok)
    if problems or benchmark is None:
        raise BenchmarkError(Path(root), problems)
    return benchmark
