"""`human`: a person's answers, recorded in `vqakit studio`, as the predictions of a run.

A participant's run folder is a run like any model's (config.yaml, manifest.json,
predictions.jsonl), plus `answers.jsonl`: what the person submitted, one line per answer, with
the client's request id (so a retried request is never written twice), the answer, any written
reasoning, and the seconds from the sample being shown to the answer being sent. The studio
appends each answer there and, at once, its prediction to predictions.jsonl; this method turns
an answer line into that prediction, so the same run resumes or is rebuilt from its answers.
A sample the person has not answered is an error of kind `not_answered` (retryable: answering
it later supersedes it), never a guess.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from vqakit.files import read_log
from vqakit.methods._registry import MethodContext, method
from vqakit.runs import register_run_log
from vqakit.schema import Prediction, Protocol, Sample
from vqakit.scoring import LETTERS

HUMAN = "human"
HUMAN_ANSWERS = "answers.jsonl"
NOT_ANSWERED = "not_answered"

PersonName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
"""A person's name: it names their review log and run folder, so it is a safe file-name part."""


class HumanOptions(BaseModel):
    """How a participant answered: who, what they were shown, in which order."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    participant: PersonName
    view: Literal["frames", "video"] = "frames"  # the protocol's frames, or the video window
    order: Literal["shuffled", "benchmark"] = "shuffled"  # shuffled: seeded by the participant's name
    answers: str = HUMAN_ANSWERS  # relative paths: in the run folder
    subset: list[str] | None = None  # the questions drawn for participants (vqakit studio --subset)
    draw: str | None = None  # how they were drawn (seed, count, or the list file and its digest)


class HumanAnswer(BaseModel):
    """One line of a participant run's answers.jsonl."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    request_id: Annotated[str, StringConstraints(min_length=8, max_length=80)]
    sample_id: str
    participant: PersonName
    choice: int | None = None  # MCQ: the option chosen (0-based)
    text: str | None = None  # open-ended: the answer typed
    reasoning: str | None = None  # written reasoning, where the sample asks for it
    elapsed_s: float = Field(ge=0)  # from the sample shown (frames loaded, video ready) to the answer sent
    answered_at: str  # ISO 8601, the server's clock
    frames_s: list[float] = []  # times of the frames shown (frames view)
    images: list[str] = []  # the strip of those frames, relative to the run folder
    prompt: str | None = None  # the text shown: question, options, subtitles


def parse_answer(line: bytes) -> HumanAnswer:
    """One line of answers.jsonl (ValueError naming the fields that are wrong)."""
    return HumanAnswer.model_validate_json(line)


register_run_log(HUMAN_ANSWERS, parse_answer)


def prediction_from_answer(sample: Sample, answer: HumanAnswer) -> Prediction:
    """The prediction of one answer: an MCQ's chosen option (its letter as the reply), or the
    typed text; written reasoning is the prediction's separate reasoning text."""
    fields = {
        "sample_id": sample.id,
        "method": HUMAN,
        "latency_s": answer.elapsed_s,
        "frames_s": answer.frames_s,
        "images": answer.images,
        "prompt": answer.prompt,
        "reasoning": answer.reasoning or None,
    }
    if sample.choices is not None:
        if answer.choice is None or not 0 <= answer.choice < len(sample.choices):
            return Prediction.failed(
                sample.id, HUMAN, "bad_answer", f"choice {answer.choice!r} is not an option of this question"
            )
        chosen = {"reply": LETTERS[answer.choice], "choice": answer.choice}
        return Prediction(**fields, **chosen, extraction="chosen by the participant")
    if not (answer.text or "").strip():
        return Prediction.failed(sample.id, HUMAN, "bad_answer", "no answer text for an open-ended question")
    return Prediction(**fields, reply=answer.text)


def read_answers(path: Path) -> dict[str, HumanAnswer]:
    """Each sample's answer in an answers.jsonl (the first one: an answer is final);
    `BadLogLines` naming each line that cannot be read."""
    found: dict[str, HumanAnswer] = {}
    for answer in read_log(path, parse_answer).checked():
        found.setdefault(answer.sample_id, answer)
    return found


def _describe(options: HumanOptions, protocol: Protocol) -> str:
    shown = (
        f"the frames the protocol sends ({protocol.frames})"
        if options.view == "frames"
        else "the sample's video window (the card allows it)"
    )
    subtitles = ", with subtitles" if protocol.subtitles else ""
    return f"answered by {options.participant} in vqakit studio, blind and timed: {shown}{subtitles}"


def _participant(options: HumanOptions) -> str:
    return options.participant


@method(HUMAN, needs_model=False, options=HumanOptions, describe=_describe, person=_participant)
async def human(sample: Sample, context: MethodContext) -> Prediction:
    """A person's answer from vqakit studio (the run's answers.jsonl); no model is called."""
    options: HumanOptions = context.options
    if HUMAN not in context.shared:
        path = Path(options.answers)
        if not path.is_absolute() and context.artifacts is not None:
            path = context.artifacts / path
        context.shared[HUMAN] = read_answers(path)
    answer = context.shared[HUMAN].get(sample.id)
    if answer is None:
        return Prediction.failed(
            sample.id, HUMAN, NOT_ANSWERED, f"{options.participant} has not answered this question yet"
        )
    return prediction_from_answer(sample, answer)
