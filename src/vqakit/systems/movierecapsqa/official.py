"""Published answers in, as a run: the official evaluation's response file (JSONL `video_id,
segment_id, question_id, question, model_response`, optionally `question_idx`; sshaar/
MovieRecapsQA `eval/`) or a plain CSV of (question id, answer), over a benchmark folder.

`import_answers` matches each answer to a sample, writes what it matched to
`<run>/imported_answers.jsonl` and what it did not to `<run>/import.json`, then runs the
`imported` method over the benchmark with `vqakit.runner.run_eval`: predictions.jsonl holds the
published answers (`method: imported`), config.yaml says where they came from (`method_args`:
source, format, digest, label), and the judges assigned score them like any run, with the
benchmark folder named to them by the runner (for the dialogue). Rerunning the same import
resumes it; judging with other judges is a new run folder (`--out`).

Answers are matched to questions as `official_answers` describes. Nothing is dropped silently:
answers that match no sample (or a sample answered before), unreadable lines and benchmark
questions with no answer are listed in import.json and in the returned `AnswerImport`. A question
without an answer becomes a not-applicable prediction (left out of every score, counted apart); a
response with an `error` or no `model_response` becomes a failed prediction, never a scored answer.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from vqakit.files import write_text_atomic
from vqakit.methods import MethodContext, method
from vqakit.schema import Prediction, Protocol, Sample
from vqakit.systems.movierecapsqa.official_answers import match_answers, read_responses

ANSWERS = "imported_answers.jsonl"
IMPORT_REPORT = "import.json"
METHOD = "imported"


class ImportedOptions(BaseModel):
    """Where the answers of an `imported` run are, and where they came from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    answers: str = ANSWERS  # {"sample_id", "reply"|"error"} lines; relative paths: in the run folder
    source: str | None = None  # the file they were imported from
    format: Literal["official-jsonl", "csv"] | None = None
    digest: str | None = None  # sha256 (16 hex digits) of that file
    label: str | None = None  # the model that wrote the answers, as the report names it


def _describe(options: ImportedOptions, protocol: Protocol) -> str:
    where = f" from {options.source}" if options.source else ""
    return f"published answers imported{where} ({options.format or 'answers file'}); no model was called"


def _answers(context: MethodContext) -> dict[str, dict[str, Any]]:
    options: ImportedOptions = context.options
    if METHOD not in context.shared:
        path = Path(options.answers)
        if not path.is_absolute() and context.artifacts is not None:
            path = context.artifacts / path
        lines = path.read_text(encoding="utf-8").splitlines()
        context.shared[METHOD] = {
            record["sample_id"]: record for record in map(json.loads, filter(str.strip, lines))
        }
    return context.shared[METHOD]


@method(METHOD, needs_model=False, options=ImportedOptions, describe=_describe, uses_frames=False)
async def imported(sample: Sample, context: MethodContext) -> Prediction:
    """Published answers read from a file (see `vqakit import movierecapsqa-answers`)."""
    options: ImportedOptions = context.options
    found = _answers(context).get(sample.id)
    if found is None:
        return Prediction.not_applicable(
            sample.id, METHOD, f"no imported answer for this question ({options.source})"
        )
    if found.get("error") is not None:
        return Prediction.failed(sample.id, METHOD, "answer_error", str(found["error"]), model=options.label)
    return Prediction(sample_id=sample.id, method=METHOD, model=options.label, reply=found["reply"])


@dataclass
class AnswerImport:
    """What an import matched, and everything it could not."""

    folder: Path
    source: str
    format: str
    matched: int
    unmatched: list[dict[str, Any]] = field(default_factory=list)  # {line, keys?, why}
    missing: list[str] = field(default_factory=list)  # sample ids without an answer
    results: dict[str, Any] = field(default_factory=dict)

    def report(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "format": self.format,
            "matched": self.matched,
            "unmatched": self.unmatched,
            "questions_without_answer": self.missing,
        }


def import_answers(
    responses: str | Path,
    bench: str | Path,
    out: str | Path,
    *,
    label: str | None = None,
    judges: dict[str, str] | None = None,
    judge_args: dict[str, dict[str, Any]] | None = None,
    concurrency: int = 8,
    settings: dict[str, Any] | None = None,
) -> AnswerImport:
    """Import published answers as a run in `out` and score it with `judges` ({name: spec});
    `settings` are more of the run's `EvalConfig` fields (e.g. how judges batch their calls)."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.runner import make_config, open_run, run_eval
    from vqakit.runs import CONFIG, RunFolder

    path, folder = Path(responses), Path(out)
    benchmark = load_benchmark(bench)
    fmt, answers, unreadable = read_responses(path)
    lines, unmatched = match_answers(benchmark.samples, answers)
    answered = {line["sample_id"] for line in lines}
    outcome = AnswerImport(
        folder,
        str(path),
        fmt,
        len(lines),
        sorted(unreadable + unmatched, key=lambda u: u["line"]),
        [s.id for s in benchmark.samples if s.id not in answered],
    )
    text = "".join(json.dumps(line) + "\n" for line in lines)
    if (folder / CONFIG).is_file() and RunFolder(folder).config.get("method") != METHOD:
        raise ValueError(f"{folder} holds a run of another method; choose another --out")
    if (folder / ANSWERS).is_file() and (folder / ANSWERS).read_text(encoding="utf-8") != text:
        raise ValueError(f"{folder} holds other imported answers; choose another --out")
    config = make_config(
        {
            "bench": str(bench),
            "method": METHOD,
            "method_args": {
                "source": str(path),
                "format": fmt,
                "digest": hashlib.sha256(path.read_bytes()).hexdigest()[:16],
                "label": label,
            },
            "judges": judges or {},
            "judge_args": judge_args or {},
            "concurrency": concurrency,
            **(settings or {}),
        }
    )
    open_run(config, folder)  # a run folder first (`--out` checked), then the answers it reads
    write_text_atomic(folder / ANSWERS, text)
    write_text_atomic(folder / IMPORT_REPORT, json.dumps(outcome.report(), indent=1) + "\n")
    outcome.results = run_eval(config, folder).results  # the runner names the benchmark to the judges
    return outcome


def imported_lines(run: str | Path) -> dict[str, dict[str, Any]]:
    """The imported answers of a run folder by sample id (empty for a run of another method)."""
    path = Path(run) / ANSWERS
    if not path.is_file():
        return {}
    return {
        record["sample_id"]: record
        for record in map(json.loads, filter(str.strip, path.read_text(encoding="utf-8").splitlines()))
    }
