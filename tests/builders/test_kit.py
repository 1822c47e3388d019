"""The builder construction kit on its own: journaled model steps, drops and stage reports,
answer-letter balancing, blind and evidence checks, the folder writer and input readers."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel

from vqakit.builders import (
    BuildJournal,
    InputError,
    ModelSteps,
    OptionPool,
    StageLog,
    balance_letters,
    blind_check,
    check_mcq,
    letter_spread,
    list_videos,
    read_records,
    seeded_random,
    write_benchmark_folder,
    write_stage_report,
)
from vqakit.models import CallError, Completion
from vqakit.prompts import register_prompt_folder
from vqakit.schema import BenchmarkError

register_prompt_folder(Path(__file__).parent / "prompts")


class Colour(BaseModel):
    colour: str


class ScriptedModel:
    """Test double for a model: `reply(sample_id, prompt)` gives each reply; every prompt it is
    asked is kept in `prompts`, in order."""

    def __init__(self, reply: Callable[[str, str], str]) -> None:
        self.reply = reply
        self.prompts: list[str] = []
        self.sample_ids: list[str] = []

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        text = "\n".join(p.text for m in messages for p in m.parts if hasattr(p, "text"))
        self.prompts.append(text)
        self.sample_ids.append(sample_id)
        return Completion(self.reply(sample_id, text), "scripted")


class FailingModel:
    """Test double for a model whose every call fails with a transport error."""

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        return Completion(None, "failing", error=CallError("http", "503 from the server"))


def colours() -> ScriptedModel:
    return ScriptedModel(lambda sample_id, prompt: json.dumps({"colour": f"red for {sample_id}"}))


def ask(steps: ModelSteps, model, item: str, prompt: str, image=None):
    return asyncio.run(steps.ask(model, "paint", item, prompt, Colour, image=image))


# journaled steps ------------------------------------------------------------------------------


def test_a_rerun_answers_known_steps_from_the_journal(tmp_path):
    first = colours()
    steps = ModelSteps(BuildJournal(tmp_path))
    found, error = ask(steps, first, "door", "What colour is the door?")
    assert error is None and found == Colour(colour="red for paint:door")
    assert first.sample_ids == ["paint:door"] and steps.reused == 0

    again, model = ModelSteps(BuildJournal(tmp_path)), colours()
    assert ask(again, model, "door", "What colour is the door?").value == found
    assert model.prompts == [] and again.reused == 1
    ask(again, model, "door", "What colour is the door, exactly?")  # another request: asked
    ask(again, model, "wall", "What colour is the door?")  # another item: asked
    assert len(model.prompts) == 2 and again.reused == 1
    keys = [json.loads(line)["key"] for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    assert (
        len(keys) == 3
        and keys[0].startswith("paint:door:")
        and keys[0] == BuildJournal.key("paint", "door", "What colour is the door?")
    )


def test_the_pixels_of_an_image_are_part_of_the_request(tmp_path):
    steps, model = ModelSteps(BuildJournal(tmp_path)), colours()
    black, white = np.zeros((8, 8, 3), np.uint8), np.full((8, 8, 3), 255, np.uint8)
    ask(steps, model, "frame", "Colour?", image=black)
    ask(steps, model, "frame", "Colour?", image=black.copy())
    ask(steps, model, "frame", "Colour?", image=white)
    assert len(model.prompts) == 2 and steps.reused == 1


def test_failed_steps_are_not_recorded_and_are_asked_again(tmp_path):
    failing = FailingModel()
    found, error = ask(ModelSteps(BuildJournal(tmp_path)), failing, "door", "Colour?")
    assert found is None and error == "model step failed: http: 503 from the server"
    unparseable = ScriptedModel(lambda sample_id, prompt: "I will not say.")
    found, error = ask(ModelSteps(BuildJournal(tmp_path)), unparseable, "door", "Colour?")
    assert found is None and error.startswith("model step failed: invalid_output")
    assert len(unparseable.prompts) == 3  # the question and two repair turns
    assert not (tmp_path / "calls.jsonl").exists()
    steps = ModelSteps(BuildJournal(tmp_path))
    assert ask(steps, colours(), "door", "Colour?").error is None and steps.reused == 0


def test_a_half_written_calls_line_from_a_kill_is_ignored(tmp_path):
    steps = ModelSteps(BuildJournal(tmp_path))
    ask(steps, colours(), "door", "Colour?")
    calls = tmp_path / "calls.jsonl"
    whole = calls.read_text()
    calls.write_text(whole + '{"key": "paint:wall:0123", "result": {"col')  # killed mid-line
    journal = BuildJournal(tmp_path)
    assert len(journal.results) == 1
    steps, model = ModelSteps(journal), colours()
    ask(steps, model, "door", "Colour?")
    ask(steps, model, "wall", "Colour?")
    assert steps.reused == 1 and len(model.prompts) == 1
    lines = calls.read_text().splitlines()
    assert len(lines) == 2 and all(json.loads(line)["result"]["colour"] for line in lines)


# stages, drops and the report -----------------------------------------------------------------


def test_drops_and_the_stage_report(tmp_path):
    seen = []
    log = StageLog(tmp_path, on_stage=seen.append)
    log.drop("1 cut", "a", "too short: 3 s < 30 s")
    log.drop("1 cut", "b", "too short: 1 s < 30 s")
    log.drop("1 cut", "c", "unreadable")
    log.drop("2 ask", "d", "model step failed: http: 503")
    first = log.close("1 cut", "videos -> windows", 5, 9)
    log.close("2 ask", "windows", 9, 8)
    log.note("no --vlm: annotations only")
    assert first.dropped == {"too short": 2, "unreadable": 1}
    assert [s.name for s in seen] == ["1 cut", "2 ask"]
    drops = [json.loads(line) for line in (tmp_path / "drops.jsonl").read_text().splitlines()]
    assert drops[0] == {"stage": "1 cut", "item": "a", "reason": "too short: 3 s < 30 s"} and len(drops) == 4

    write_stage_report(tmp_path, "Toy build", log, reused=7)
    stages = json.loads((tmp_path / "stages.json").read_text())
    assert stages["notes"] == ["no --vlm: annotations only"]
    assert stages["stages"][0] == {
        "stage": "1 cut",
        "unit": "videos -> windows",
        "in": 5,
        "out": 9,
        "dropped": {"too short": 2, "unreadable": 1},
    }
    report = (tmp_path / "report.md").read_text()
    assert report.startswith("# Toy build: counts per stage\n")
    assert "| 1 cut | videos -> windows | 5 | 9 | too short: 2; unreadable: 1 |" in report
    assert "| 2 ask | windows | 9 | 8 | model step failed: 1 |" in report
    assert "Model steps reused from an earlier run: 7." in report
    assert report.endswith("- no --vlm: annotations only\n")

    StageLog(tmp_path)  # the next run starts its own drop log
    assert (tmp_path / "drops.jsonl").read_text() == ""


# answer letters -------------------------------------------------------------------------------


def pools(count: int, wrong: int = 5) -> list[OptionPool]:
    return [
        OptionPool(f"q{i}", f"answer {i}", [f"wrong {i}.{k}" for k in range(wrong)]) for i in range(count)
    ]


def test_gold_letters_are_spread_evenly_and_reproducibly():
    placed = balance_letters(pools(12), seed=3)
    assert [p.answer_index for p in placed] == [i % 6 for i in range(12)]
    assert all(p.options[p.answer_index] == f"answer {i}" for i, p in enumerate(placed))
    assert all(
        sorted(p.options) == sorted([f"answer {i}", *pools(12)[i].wrong]) for i, p in enumerate(placed)
    )
    assert letter_spread((p.answer_index for p in placed), 6) == dict.fromkeys("ABCDEF", 2)
    assert balance_letters(pools(12), seed=3) == placed
    assert balance_letters(pools(12), seed=4) != placed
    # the wrong options' order depends on the question id and seed, not on the position
    alone = balance_letters([pools(12)[6]], seed=3)[0]
    assert [o for o in alone.options if o.startswith("wrong")] == [
        o for o in placed[6].options if o.startswith("wrong")
    ]


def test_letter_balancing_follows_the_number_of_options():
    placed = balance_letters(pools(9, wrong=3), seed=0)
    assert [p.answer_index for p in placed] == [0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert letter_spread((p.answer_index for p in placed), 4) == {"A": 3, "B": 2, "C": 2, "D": 2}


def test_seeded_random_depends_on_seed_and_parts_only():
    assert seeded_random(0, "a", "b").random() == seeded_random(0, "a", "b").random()
    assert seeded_random(0, "a", "b").random() != seeded_random(1, "a", "b").random()
    assert seeded_random(0, "a", "b").random() != seeded_random(0, "b", "a").random()


# blind check and verification -----------------------------------------------------------------

OPTIONS = ["a hammer", "a wrench", "a spoon", "a brush"]


def letter_model(pick: Callable[[str], str]) -> ScriptedModel:
    return ScriptedModel(lambda sample_id, prompt: json.dumps({"answer": pick(prompt)}))


def test_blind_check_asks_question_and_options_only(tmp_path):
    steps = ModelSteps(BuildJournal(tmp_path))
    guesser = letter_model(lambda prompt: "B")
    solved = asyncio.run(
        blind_check(steps, guesser, item="q1", question="What does C turn?", options=OPTIONS, expected=1)
    )
    assert solved.correct and solved.chosen == 1 and solved.error is None
    missed = asyncio.run(
        blind_check(steps, guesser, item="q2", question="What does C hold?", options=OPTIONS, expected=2)
    )
    assert not missed.correct and missed.chosen == 1
    assert guesser.sample_ids == ["blind:q1", "blind:q2"]
    assert (
        "Question: What does C turn?\nA. a hammer\nB. a wrench\nC. a spoon\nD. a brush" in guesser.prompts[0]
    )
    assert "cannot see the video" in guesser.prompts[0]
    failed = asyncio.run(
        blind_check(
            ModelSteps(BuildJournal(tmp_path)),
            FailingModel(),
            item="q3",
            question="?",
            options=OPTIONS,
            expected=0,
        )
    )
    assert not failed.correct and failed.chosen is None and failed.error.startswith("model step failed")


def test_verification_with_and_without_evidence(tmp_path):
    steps = ModelSteps(BuildJournal(tmp_path))
    # a reader that finds the answer only when the evidence names it
    reader = letter_model(lambda prompt: "B" if "Evidence:\nC turns a wrench." in prompt else "C")

    async def verify(evidence: str | None):
        return await check_mcq(
            steps,
            reader,
            step="check",
            item="q1",
            question="What does C turn?",
            options=OPTIONS,
            expected=1,
            evidence=evidence,
        )

    with_evidence, without = asyncio.run(verify("C turns a wrench.")), asyncio.run(verify(None))
    assert with_evidence.correct and (without.correct, without.chosen) == (False, 2)
    assert "Evidence:" not in reader.prompts[1] and "Question: What does C turn?" in reader.prompts[1]
    assert steps.reused == 0
    asyncio.run(verify("C turns a wrench."))  # asked before: answered from the journal
    assert steps.reused == 1 and len(reader.prompts) == 2


def test_verification_takes_a_builders_own_prompt_and_fields(tmp_path):
    steps = ModelSteps(BuildJournal(tmp_path))
    reader = letter_model(lambda prompt: "D")
    check = asyncio.run(
        check_mcq(
            steps,
            reader,
            step="verify",
            item="brush|howto",
            options=OPTIONS,
            expected=3,
            evidence="Brushes sweep.",
            prompt="kit_test_statement_check",
            topic="cleaning",
        )
    )
    assert check.correct
    assert reader.prompts == [
        "Which statement is true?\nSource: Brushes sweep.\nA. a hammer\nB. a wrench\nC. a spoon\nD. a brush\n"
        "Topic: cleaning"
    ]
    unknown = check_mcq(
        steps, reader, step="v", item="x", options=OPTIONS, expected=0, prompt="no_such_prompt"
    )
    with pytest.raises(ValueError, match="unknown prompt 'no_such_prompt'"):
        asyncio.run(unknown)


# the folder writer ----------------------------------------------------------------------------

CARD = {"name": "kit-test", "version": "1", "license": "CC0-1.0", "description": "A kit test."}


def sample(**changes) -> dict:
    record = {
        "id": "s1",
        "question": "What does C turn?",
        "choices": OPTIONS,
        "answer": 1,
        "videos": [{"path": "media/clips/index.mp4", "start_s": 0.0, "end_s": 10.0}],
        "gold_clips": ["c1"],
        "gold_passages": ["p1"],
    }
    return {**record, **changes}


CLIPS = [{"id": "c1", "video": {"path": "media/clips/index.mp4", "start_s": 0.0, "end_s": 10.0}}]
PASSAGES = [{"id": "p1", "text": "C turns the wrench to loosen the bolt.", "title": "Wrenches"}]


def test_the_folder_writer_writes_a_folder_that_loads(tmp_path, index_clip):
    out = tmp_path / "bench"
    media = {"clips/index.mp4": index_clip}
    bench = write_benchmark_folder(
        out, card=CARD, samples=[sample()], clips=CLIPS, passages=PASSAGES, media=media, writer="kit test"
    )
    assert [s.id for s in bench.samples] == ["s1"] and list(bench.clips) == ["c1"]
    assert (out / "media/clips/index.mp4").stat().st_size == index_clip.stat().st_size
    assert (out / "corpus/passages.jsonl").read_text() == json.dumps(PASSAGES[0]) + "\n"
    assert (out / "benchmark.yaml").read_text().startswith("name: kit-test\n")
    placed = (out / "media/clips/index.mp4").stat().st_ino
    write_benchmark_folder(
        out, card=CARD, samples=[sample()], clips=CLIPS, passages=PASSAGES, media=media, writer="kit test"
    )
    assert (out / "media/clips/index.mp4").stat().st_ino == placed  # kept, not placed again


def test_the_folder_writer_refuses_an_invalid_folder_listing_every_problem(tmp_path, index_clip):
    bad = [
        sample(),
        sample(id="s2", answer=7),  # no such option
        sample(id="s3", gold_clips=["nowhere"]),
        sample(id="s4", videos=[{"path": "media/clips/missing.mp4", "start_s": 0.0, "end_s": 5.0}]),
    ]
    with pytest.raises(BenchmarkError) as raised:
        write_benchmark_folder(
            tmp_path / "bench",
            card=CARD,
            samples=bad,
            clips=CLIPS,
            passages=[],
            media={"clips/index.mp4": index_clip},
            writer="kit test",
        )
    problems = raised.value.problems
    assert {p.line for p in problems if p.file == "samples.jsonl"} == {1, 2, 3, 4}
    text = str(raised.value)
    assert "'nowhere' is not in corpus/clips.jsonl" in text and "missing.mp4" in text
    assert "'p1' is not in corpus/passages.jsonl" in text


# inputs ---------------------------------------------------------------------------------------


class Note(BaseModel):
    video: str
    time_s: float


def test_records_are_read_into_the_schema_skipping_blank_lines(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text('{"video": "a.mp4", "time_s": 1}\n\n{"video": "b.mp4", "time_s": 2.5}\n')
    assert read_records(path, Note) == [Note(video="a.mp4", time_s=1), Note(video="b.mp4", time_s=2.5)]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"video": "a.mp4", "time_s": 1}\n{"video": "b.mp4"}\n', "notes.jsonl:2: time_s: Field required"),
        ('{"video": "a.mp4", "time_s": 1}\n{not json\n', "notes.jsonl:2: -: malformed JSON"),
        (None, "notes.jsonl: file not found"),
    ],
)
def test_a_bad_record_names_the_file_and_line(tmp_path, text, message):
    path = tmp_path / "notes.jsonl"
    if text is not None:
        path.write_text(text)
    with pytest.raises(InputError, match=re.escape(f"{tmp_path}/{message}")):
        read_records(path, Note)


def test_list_videos_finds_video_files_under_a_folder(tmp_path):
    (tmp_path / "kitchen").mkdir()
    for name in ("kitchen/b.MP4", "a.mkv", "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    assert list_videos(tmp_path) == {"a.mkv": tmp_path / "a.mkv", "kitchen/b.MP4": tmp_path / "kitchen/b.MP4"}
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no video files"):
        list_videos(tmp_path / "empty")
    with pytest.raises(InputError, match="not a folder of videos"):
        list_videos(tmp_path / "absent")
