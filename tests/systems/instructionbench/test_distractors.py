"""Open-ended -> MCQ: six drafted wrong answers, four kept, duplicates (text and embedding),
the incorrectness and strength checks of three different checkers, redesigns as distinct
journaled attempts, giving up after ten, failures as errors, journal reuse."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from vqakit.builders import BuildJournal, ModelSteps
from vqakit.models import CallError, Completion, Text
from vqakit.prompts import register_prompt_folder
from vqakit.systems.instructionbench import distractors as distractors_module
from vqakit.systems.instructionbench.distractors import MCQResult, duplicate, make_mcq, normalise
from vqakit.systems.instructionbench.generate import QA
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

register_prompt_folder(Path(distractors_module.__file__).parent / "prompts")

QA_ID = "hr1:coarse:q1"
ANSWER = "Tissue is applied on the face using water."
CLIP = VideoInfo(
    video_id="hr1",
    source="hirest",
    theme="Make a Plaster Mask",
    duration=103.0,
    steps=[
        Step(start=35, end=48, text="clean out the face"),
        Step(start=48, end=60, text="apply tissue using water on face"),
        Step(start=77, end=79, text="dry it out"),
    ],
)
PAIR = QA(
    qa_id=QA_ID,
    clip_id="hr1",
    question="What is done right after the face is cleaned?",
    answer=ANSWER,
    reason="future step prediction",
    category="future step prediction",
    granularity="coarse",
    perspective="third",
)
WRONG = [
    "The mask is dried out with a fan.",
    "Plaster strips are pressed under the neck.",
    "A brush smooths cream over the cheeks.",
    "The forehead is wrapped in cling film.",
    "Wet clay is spread along the jaw.",
    "A towel is laid over the eyes.",
]
_OPTION = re.compile(r"^([A-E])\. (.*)$", re.MULTILINE)
_ATTEMPT = re.compile(r":a(\d+)(?::|$)")


class ScriptedModel:
    """Test double for a chat model named `name`: `reply(request_id, prompt)` gives each reply
    (None: the call fails); every request id and prompt is recorded."""

    def __init__(self, name: str, reply: Callable[[str, str], object]) -> None:
        self.name, self.reply = name, reply
        self.calls: list[tuple[str, str]] = []

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        text = "\n".join(p.text for m in messages for p in m.parts if isinstance(p, Text))
        self.calls.append((sample_id, text))
        reply = self.reply(sample_id, text)
        if reply is None:
            return Completion(None, self.name, error=CallError("http", "503 from the server"))
        return Completion(reply if isinstance(reply, str) else json.dumps(reply), self.name)

    async def aclose(self) -> None:
        pass

    def __str__(self) -> str:
        return self.name


def attempt_of(request_id: str) -> int:
    return int(_ATTEMPT.search(request_id).group(1))


def writer(drafts: Callable[[int], list[str]] = lambda k: WRONG, picks=(1, 2, 3, 4)) -> ScriptedModel:
    """Drafts the wrong answers of attempt k and keeps `picks` of them."""

    def reply(request_id: str, prompt: str) -> object:
        if request_id.startswith("mcq-wrong:"):
            return {"wrong_answers": drafts(attempt_of(request_id))}
        return {"picks": list(picks), "reason": "plausible and distinct"}

    return ScriptedModel("writer", reply)


def checker(
    name: str, with_info: Callable[[int], bool], without_info: Callable[[int], bool]
) -> ScriptedModel:
    """Finds the answer among the lettered options when `with_info(k)` / `without_info(k)` say
    so for attempt k, else picks another option."""

    def reply(request_id: str, prompt: str) -> object:
        right = (with_info if request_id.startswith("mcq-with-info:") else without_info)(
            attempt_of(request_id)
        )
        options = dict((text, letter) for letter, text in _OPTION.findall(prompt))
        letter = options[ANSWER] if right else next(v for k, v in options.items() if k != ANSWER)
        return {"answer": letter}

    return ScriptedModel(name, reply)


def checkers(
    with_info: tuple[Callable[[int], bool], ...] = (lambda k: True,) * 3,
    without_info: tuple[Callable[[int], bool], ...] = (lambda k: False,) * 3,
) -> list[ScriptedModel]:
    return [
        checker(f"checker-{n}", w, wo) for n, (w, wo) in enumerate(zip(with_info, without_info, strict=True))
    ]


class FakeEmbedder:
    """Test double for a text embedder: a fixed vector per listed text; any other text gets a
    direction of its own (orthogonal to every other)."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors
        self.own: dict[str, int] = {}

    def embed(self, texts: list[str]) -> np.ndarray:
        found = []
        for text in texts:
            vector = np.zeros(64)
            vector[2 + self.own.setdefault(text, len(self.own))] = 1.0
            found.append(np.asarray(self.vectors[text], dtype=float) if text in self.vectors else vector)
        return np.stack(found)


def run(writer_model, checker_models, folder: Path, **kwargs) -> MCQResult:
    steps = ModelSteps(BuildJournal(folder))
    return asyncio.run(make_mcq(steps, writer_model, checker_models, CLIP, PAIR, **kwargs))


def ids(*models: ScriptedModel) -> list[str]:
    return [request_id for model in models for request_id, _ in model.calls]


def test_a_good_first_attempt_gives_five_options_with_the_answer_first(tmp_path):
    write, check = writer(picks=(2, 3, 5, 6)), checkers()
    made = run(write, check, tmp_path)
    assert made.options == [ANSWER, WRONG[1], WRONG[2], WRONG[4], WRONG[5]]
    assert (made.attempts, made.history, made.error, made.given_up) == (1, [], None, False)
    assert ids(write) == [f"mcq-wrong:{QA_ID}:a1", f"mcq-pick:{QA_ID}:a1"]
    assert ids(check[0]) == [
        f"mcq-with-info:{QA_ID}:a1:checker-0",
        f"mcq-without-info:{QA_ID}:a1:checker-0",
    ]
    assert [(c.model, c.with_info, c.with_info_correct, c.without_info_correct) for c in made.checks] == [
        (f"checker-{n}", ANSWER, True, False) for n in range(3)
    ]
    assert all(c.without_info in made.options[1:] for c in made.checks)
    draft, pick = write.calls[0][1], write.calls[1][1]
    assert "Write 6 different wrong answers" in draft and "apply tissue using water on face" in draft
    assert all(f"{n}. {text}" in pick for n, text in enumerate(WRONG, start=1))
    with_info, without_info = check[0].calls[0][1], check[0].calls[1][1]
    assert "clean out the face" in with_info and "clean out the face" not in without_info
    assert _OPTION.findall(with_info) == _OPTION.findall(without_info)  # one seeded order per attempt
    assert len(_OPTION.findall(with_info)) == 5


def test_the_checkers_see_the_answer_at_a_seeded_letter_not_always_a(tmp_path):
    letters = set()
    for n in range(6):
        pair = PAIR.model_copy(update={"qa_id": f"hr1:coarse:q{n}"})
        check = checkers()
        steps = ModelSteps(BuildJournal(tmp_path / str(n)))
        asyncio.run(make_mcq(steps, writer(), check, CLIP, pair))
        letters.add(dict((t, letter) for letter, t in _OPTION.findall(check[0].calls[0][1]))[ANSWER])
    assert len(letters) > 1


def test_repeated_text_among_the_options_is_drafted_again(tmp_path):
    drafts = {1: ["tissue is applied on the face, using water", *WRONG[1:]], 2: WRONG}
    write, check = writer(lambda k: drafts[k]), checkers()
    made = run(write, check, tmp_path)
    assert made.attempts == 2 and made.options == [ANSWER, *WRONG[:4]]
    assert made.history == [
        f"attempt 1: options {ANSWER!r} and 'tissue is applied on the face, using water' repeat each other"
    ]
    assert not any(":a1:" in rid for rid in ids(*check))  # a duplicate is never checked
    retry = write.calls[2][1]
    assert write.calls[2][0] == f"mcq-wrong:{QA_ID}:a2"
    assert "two of the choices said the same thing" in retry and "using water |" in retry


def test_options_too_close_in_embedding_are_drafted_again(tmp_path):
    near = {WRONG[0]: [1.0, 0.1] + [0.0] * 62, WRONG[1]: [1.0, 0.0] + [0.0] * 62}
    write = writer(lambda k: WRONG if k == 1 else WRONG[2:] + WRONG[:2])
    made = run(write, checkers(), tmp_path, embedder=FakeEmbedder(near))
    assert made.attempts == 2 and made.options == [ANSWER, *WRONG[2:6]]
    assert made.history[0].startswith(f"attempt 1: options {WRONG[0]!r} and {WRONG[1]!r} are near-duplicates")
    loose = run(writer(), checkers(), tmp_path / "loose", embedder=FakeEmbedder(near), similarity=0.999)
    assert loose.attempts == 1


def test_minilm_catches_a_paraphrase_of_the_answer(tmp_path):
    pytest.importorskip("sentence_transformers")
    from vqakit.models import TextEmbedder

    paraphrase = "Tissue is applied to the face with water."
    assert normalise(paraphrase) != normalise(ANSWER)
    embedder = TextEmbedder("minilm")
    assert duplicate([ANSWER, *WRONG[:4]], embedder) is None
    first, second, cosine = duplicate([ANSWER, paraphrase, *WRONG[:3]], embedder)
    assert (first, second) == (ANSWER, paraphrase) and cosine > 0.9
    made = run(
        writer(lambda k: [paraphrase, *WRONG[1:]] if k == 1 else WRONG),
        checkers(),
        tmp_path,
        embedder=embedder,
    )
    assert made.attempts == 2 and "near-duplicates" in made.history[0]


def test_most_checkers_missing_the_answer_with_the_info_means_a_redesign(tmp_path):
    wrong_once = lambda k: k != 1  # noqa: E731
    check = checkers(with_info=(wrong_once, wrong_once, lambda k: True))
    write = writer()
    made = run(write, check, tmp_path)
    assert made.attempts == 2 and made.options and not made.given_up
    assert made.history == ["attempt 1: 2 of 3 checkers missed the answer with the video info"]
    assert f"mcq-without-info:{QA_ID}:a1:checker-0" not in ids(*check)  # not asked after a failure
    assert "may actually be right" in write.calls[2][1]


def test_one_checker_of_three_missing_the_answer_is_no_majority(tmp_path):
    made = run(writer(), checkers(with_info=(lambda k: False, lambda k: True, lambda k: True)), tmp_path)
    assert made.attempts == 1 and made.checks[0].with_info_correct is False


def test_most_checkers_finding_the_answer_without_the_info_means_a_redesign(tmp_path):
    easy_once = lambda k: k == 1  # noqa: E731
    check = checkers(without_info=(easy_once, easy_once, lambda k: False))
    write = writer()
    made = run(write, check, tmp_path)
    assert made.attempts == 2 and made.options
    assert made.history == ["attempt 1: 2 of 3 checkers found the answer without the video info"]
    assert "too easy to rule out" in write.calls[2][1]
    single = run(
        writer(), checkers(without_info=(lambda k: True, lambda k: False, lambda k: False)), tmp_path / "b"
    )
    assert single.attempts == 1


def test_it_gives_up_after_ten_attempts_and_keeps_why(tmp_path):
    write, check = writer(), checkers(without_info=(lambda k: True,) * 3)
    made = run(write, check, tmp_path)
    assert made.given_up and made.attempts == 10 and made.options == [] and made.error is None
    assert made.history == [
        f"attempt {k}: 3 of 3 checkers found the answer without the video info" for k in range(1, 11)
    ]
    assert [rid for rid in ids(write) if rid.startswith("mcq-wrong")] == [
        f"mcq-wrong:{QA_ID}:a{k}" for k in range(1, 11)
    ]
    assert [c.without_info_correct for c in made.checks] == [True] * 3  # the last attempt's picks
    assert (
        run(writer(), checkers(without_info=(lambda k: True,) * 3), tmp_path / "b", max_attempts=3).attempts
        == 3
    )


def test_a_rerun_over_the_same_journal_makes_no_model_calls(tmp_path):
    def build() -> tuple[ScriptedModel, list[ScriptedModel]]:
        drafts = {1: [ANSWER.lower(), *WRONG[1:]]}
        miss = lambda k: k != 2  # noqa: E731
        return writer(lambda k: drafts.get(k, WRONG)), checkers(with_info=(miss, miss, miss))

    write, check = build()
    made = run(write, check, tmp_path)
    assert made.attempts == 3 and len(made.history) == 2
    again_write, again_check = build()
    steps = ModelSteps(BuildJournal(tmp_path))
    again = asyncio.run(make_mcq(steps, again_write, again_check, CLIP, PAIR))
    assert ids(again_write, *again_check) == [] and again == made
    assert steps.reused == len(ids(write, *check))


def test_a_failed_checker_call_is_an_error_not_a_verdict(tmp_path):
    check = checkers()
    check[1] = ScriptedModel("checker-1", lambda rid, prompt: None)
    made = run(writer(), check, tmp_path)
    assert made.error == "model step failed: http: 503 from the server"
    assert made.options == [] and not made.given_up and made.history == []


def test_a_failed_or_unusable_writer_step_is_an_error(tmp_path):
    down = ScriptedModel("writer", lambda rid, prompt: None)
    made = run(down, checkers(), tmp_path / "a")
    assert made.error.startswith("model step failed") and made.options == [] and not made.given_up
    bad_picks = writer(picks=(1, 1, 2, 3))  # not four different options, even after repair turns
    made = run(bad_picks, checkers(), tmp_path / "b")
    assert made.error.startswith("model step failed: invalid_output") and made.options == []


def test_drafts_written_as_numbered_keys_or_a_bare_list_are_read(tmp_path):
    numbered = {f"Wrong_answer{n}": text for n, text in enumerate(WRONG, start=1)}
    for n, shape in enumerate([numbered, WRONG]):
        write = ScriptedModel(
            "writer",
            lambda rid, prompt, shape=shape: (
                shape if rid.startswith("mcq-wrong") else {"Picks": ["1", 2, 3, 4]}
            ),
        )
        assert run(write, checkers(), tmp_path / str(n)).options == [ANSWER, *WRONG[:4]]


def test_the_checkers_must_be_three_different_models(tmp_path):
    same = [checker("checker-x", lambda k: True, lambda k: False) for _ in range(3)]
    with pytest.raises(ValueError, match="different specs"):
        run(writer(), same, tmp_path)
    with pytest.raises(ValueError, match="three or more"):
        run(writer(), checkers()[:2], tmp_path)
