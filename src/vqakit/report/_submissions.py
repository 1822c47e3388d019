"""Submission files: a run's answers in the format a benchmark's evaluation server takes, for
benchmarks whose answers are hidden (a test split). Benchmark systems register each format
(`register_submission`); `vqakit export RUN --format <name>` writes it.

A format's `write` gets one `Answer` per sample of the run: the sample and the option read from
its reply (by the rules, or by the `extract` judge where the rules abstained), None when nothing
could be read or the sample failed; it returns the file's text. Answers without an option are
left out of the file and listed, so a submission never carries a made-up choice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from vqakit.benchmarks import load_benchmark
from vqakit.files import write_text_atomic
from vqakit.plugins import load_plugins
from vqakit.runs import RunFolder
from vqakit.schema import Sample
from vqakit.scoring import LETTERS


@dataclass(frozen=True)
class Answer:
    sample: Sample
    choice: int | None  # index of the option read; None: none could be read, or the sample failed

    @property
    def letter(self) -> str | None:
        return None if self.choice is None else LETTERS[self.choice]


@dataclass(frozen=True)
class SubmissionFormat:
    name: str  # `vqakit export RUN --format <name>`
    title: str  # what it is for, e.g. "EgoSchema's q_uid,answer CSV (Kaggle)"
    suffix: str  # the file's usual extension, e.g. ".csv"
    write: Callable[[list[Answer]], str]


@dataclass
class Submission:
    path: Path
    written: int
    without_answer: list[str] = field(default_factory=list)  # sample ids left out


_FORMATS: dict[str, SubmissionFormat] = {}


def register_submission(fmt: SubmissionFormat) -> SubmissionFormat:
    _FORMATS[fmt.name] = fmt
    return fmt


def submission_formats() -> dict[str, SubmissionFormat]:
    load_plugins()
    return dict(sorted(_FORMATS.items()))


def run_answers(run: str | Path) -> list[Answer]:
    """Every sample of the run's benchmark that the run covered, with the option read for it."""
    folder = RunFolder(run)
    benchmark = load_benchmark(str(folder.benchmark_location()))
    scores = folder.scores()
    answers = []
    for sample in benchmark.samples:
        row = scores.get(sample.id)
        if row is None:
            continue
        chosen = row.get("chosen")
        answers.append(Answer(sample, LETTERS.index(chosen) if chosen else None))
    return answers


def write_submission(run: str | Path, name: str, out: str | Path | None = None) -> Submission:
    """Write run `run`'s answers in submission format `name` to `out` (default: beside the run,
    `<run>/submission-<name><suffix>`). ValueError for an unknown format or a run without scores."""
    formats = submission_formats()
    if name not in formats:
        raise ValueError(f"unknown submission format {name!r}; known: {', '.join(formats) or 'none'}")
    fmt = formats[name]
    answers = run_answers(run)
    if not answers:
        raise ValueError(f"{run}: no scored sample yet (run vqakit eval first)")
    path = Path(out) if out is not None else Path(run) / f"submission-{name}{fmt.suffix}"
    kept = [answer for answer in answers if answer.choice is not None]
    write_text_atomic(path, fmt.write(kept))
    return Submission(path, len(kept), [a.sample.id for a in answers if a.choice is None])
