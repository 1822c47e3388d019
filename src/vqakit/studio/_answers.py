"""Answer mode: a participant's run folder (a human baseline), written as they answer.

The run is opened like any other (`vqakit.runner.open_run`: config.yaml with method `human`
and its options, manifest.json naming the participant); each answer is appended to the run's
answers.jsonl (request ids make a resent answer a no-op) and, under the same lock, its
prediction to predictions.jsonl (`vqakit.runs.PredictionLog`). Opening the run again writes the
prediction of any answer a kill left without one, so the two files always agree. An answer is
final. When the last sample is answered the run is scored (`vqakit.runner.score_run`).
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from vqakit.files import SET_ASIDE_OPTION, set_aside_path, write_atomic
from vqakit.methods import (
    HUMAN,
    HUMAN_ANSWERS,
    HumanAnswer,
    HumanOptions,
    prediction_from_answer,
)
from vqakit.runner import default_run_folder, make_config, open_run, score_run
from vqakit.runs import PREDICTIONS, PredictionLog, strip_path
from vqakit.schema import Benchmark, Protocol, Sample
from vqakit.studio._jsonlog import RequestLog
from vqakit.studio._media import ShownFrames
from vqakit.studio._review import REQUEST_ID, TEXT_LENGTH
from vqakit.studio._study import Draw


class AnswerError(ValueError):
    """An answer that cannot be recorded (said to the client with a status code)."""

    def __init__(self, message: str, status: int = 422) -> None:
        self.status = status
        super().__init__(message)


class AnswerBody(BaseModel):
    """What a client sends to `POST /api/answer/{sample_id}` (types exact: `true` is no choice)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    choice: int | None = Field(None, ge=0, le=25)
    text: str | None = Field(None, max_length=TEXT_LENGTH)
    reasoning: str | None = Field(None, max_length=TEXT_LENGTH)
    elapsed_s: float = Field(ge=0, le=86400)
    request_id: str = Field(pattern=REQUEST_ID)


@dataclass
class AnswerSettings:
    """What every participant's run of one studio records in its config."""

    view: str = "frames"  # "frames" or "video" (only where the card allows it)
    order: str = "shuffled"
    limit: int | None = None  # the first N samples of the benchmark (as `vqakit eval --limit`)
    subset: Draw | None = None  # the questions drawn for participants (`--subset`)
    judges: dict[str, str] = field(default_factory=dict)  # judge name -> model spec
    judge_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: Path = Path("runs")


def shown_text(sample: Sample, subtitles: list[str]) -> str:
    """The text a participant is shown, as the run's prompt field keeps it."""
    from vqakit.scoring import format_options

    parts = [sample.question]
    if sample.choices is not None:
        parts.append(format_options(sample.choices, "letters"))
    if subtitles:
        parts.append("Subtitles:\n" + "\n".join(subtitles))
    return "\n\n".join(parts)


def answer_log(folder: Path) -> RequestLog:
    """The answers.jsonl of a participant's run folder."""
    path = folder / HUMAN_ANSWERS
    hint = (
        f"Mend or remove these lines, or run `vqakit report {folder} {SET_ASIDE_OPTION}` to move them "
        f"into {set_aside_path(path)} (kept there, counted in results.json); the questions they "
        "answered are then asked again."
    )
    return RequestLog(path, HumanAnswer, hint=hint)


class ParticipantRun:
    """One participant's run over one benchmark."""

    def __init__(self, bench: str, benchmark: Benchmark, participant: str, settings: AnswerSettings) -> None:
        self.benchmark = benchmark
        self.participant = participant
        self.options = HumanOptions(
            participant=participant,
            view=settings.view,
            order=settings.order,
            subset=settings.subset.ids if settings.subset else None,
            draw=settings.subset.how if settings.subset else None,
        )
        self.folder = default_run_folder(benchmark, HUMAN, root=settings.runs, suffix=participant)
        self.config = make_config(
            {
                "bench": bench,
                "method": HUMAN,
                "method_args": self.options.model_dump(exclude_none=True),
                "limit": settings.limit,
                "judges": settings.judges,
                "judge_args": settings.judge_args,
                # the reasoning a participant wrote (the prediction's reasoning text) is what the
                # rubric judge and object recall read; a chosen letter or typed answer is not
                "reasoning_source": "thinking",
            }
        )
        self.protocol: Protocol = open_run(self.config, self.folder).protocol
        self.answers = answer_log(self.folder)
        self._lock = threading.Lock()
        self.scoring: str = ""  # "", "running", "done" or "failed: ..."
        pool = benchmark.samples[: settings.limit] if settings.limit else list(benchmark.samples)
        if settings.subset is not None:
            drawn = set(settings.subset.ids)
            pool = [s for s in benchmark.samples if s.id in drawn]
        self.samples = {s.id: s for s in pool}
        self.order = [s.id for s in pool]
        if self.options.order == "shuffled":
            seed = int(hashlib.sha256(f"{benchmark.card.name}/{participant}".encode()).hexdigest()[:16], 16)
            random.Random(seed).shuffle(self.order)
        self._reconcile(self.answers.records())

    def _reconcile(self, records: list[dict[str, Any]]) -> None:
        """Write the prediction of every answer that has none (a kill between the two writes)."""
        log = PredictionLog(self.folder / PREDICTIONS)
        try:
            for record in records:
                answer = HumanAnswer.model_validate(record)
                sample = self.samples.get(answer.sample_id)
                if sample is not None and not log.done(answer.sample_id):
                    log.append(prediction_from_answer(sample, answer))
        finally:
            log.close()

    def answered(self) -> dict[str, HumanAnswer]:
        """Each question's answer (the first: an answer is final), from the readable lines;
        `problems()` names the others."""
        found: dict[str, HumanAnswer] = {}
        for record in self.answers.records():
            answer = HumanAnswer.model_validate(record)
            if answer.sample_id in self.samples:
                found.setdefault(answer.sample_id, answer)
        return found

    def problems(self) -> list[str]:
        """`FILE:LINE: reason` of the lines of the answers log that cannot be read (the run
        takes no answer until they are mended or set aside: which questions they answer is
        unknown)."""
        return self.answers.problems()

    def next_sample(self) -> Sample | None:
        done = self.answered()
        return next((self.samples[sid] for sid in self.order if sid not in done), None)

    def progress(self) -> tuple[int, int]:
        return len(self.answered()), len(self.order)

    def record(
        self, sample_id: str, body: AnswerBody, shown: ShownFrames | None, prompt: str
    ) -> tuple[dict, bool]:
        """Append an answer and its prediction; (the stored answer, whether written now). The
        frames shown are then kept as the run's strip of the sample, as a model's run keeps them
        (after the lines: a kill before it leaves the report to decode them again)."""
        sample = self.samples.get(sample_id)
        if sample is None:
            raise AnswerError(f"{sample_id!r} is not one of the questions of this session", 404)
        if sample.choices is not None:
            if body.choice is None or not 0 <= body.choice < len(sample.choices):
                raise AnswerError(f"choice: give the index of one of the {len(sample.choices)} options")
        elif not (body.text or "").strip():
            raise AnswerError("text: type an answer")
        text = (body.text or "").strip() or None
        images = [strip_path(sample.id)] if shown is not None and shown.jpegs else []
        answer = HumanAnswer(
            request_id=body.request_id,
            sample_id=sample.id,
            participant=self.participant,
            choice=body.choice if sample.choices is not None else None,
            text=text if sample.choices is None else None,
            reasoning=(body.reasoning or "").strip() or None,
            elapsed_s=round(body.elapsed_s, 3),
            answered_at=datetime.now(UTC).isoformat(timespec="milliseconds"),
            frames_s=shown.times_s if shown is not None else [],
            images=images,
            prompt=prompt,
        )

        def not_answered(records: list[dict[str, Any]]) -> None:
            if any(r.get("sample_id") == sample.id for r in records):
                raise AnswerError(f"{sample.id} was answered before; an answer is final", 409)

        with self._lock:
            stored, written = self.answers.append(
                answer.model_dump(mode="json"), check=not_answered, then=self._reconcile, refuse_damaged=True
            )
        if written and images:
            self._write_strip(images[0], shown)
        return stored, written

    def _write_strip(self, relative: str, shown: ShownFrames) -> None:
        if not (self.folder / relative).is_file():
            write_atomic(self.folder / relative, lambda handle: handle.write(shown.strip))

    def score(self) -> None:
        """Score the run (judges of the config, then scores, results and report); the outcome
        is kept in `scoring` for the participant's page."""
        self.scoring = "running"
        try:
            score_run(self.folder)
        except Exception as error:  # shown on the page and the console; the answers are safe
            self.scoring = f"failed: {type(error).__name__}: {error}"
            logging.getLogger("vqakit.studio").warning("scoring %s: %s", self.folder, self.scoring)
        else:
            self.scoring = "done"
