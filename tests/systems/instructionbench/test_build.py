"""`vqakit build instructionbench` end to end: annotation files of all four public formats and the
table form, synthetic videos, and scripted models (a test double answering by request id
`step:item`) that make every stage run and every kind of drop happen; then validate, stats,
evaluation with 8 and 16 frames and both judges, the report, a rerun and the command line."""

from __future__ import annotations

import json
import re
import shutil
from importlib.util import find_spec
from pathlib import Path

import pytest
from click.testing import CliRunner

import vqakit.systems.instructionbench  # noqa: F401  (registers prompts, groups and the system)
from vqakit.benchmarks import check_benchmark, load_benchmark
from vqakit.cli.build_instructionbench import instructionbench
from vqakit.cli.stats import stats as stats_command
from vqakit.files import OutFolderRefused
from vqakit.models import Completion
from vqakit.runner import EvalConfig, run_eval
from vqakit.systems.instructionbench.builder import (
    InputError,
    InstructionBenchBuildConfig,
    build_instructionbench,
)
from vqakit.video import write_index_clip

FIXTURES = Path(__file__).parents[2] / "fixtures/instructionbench/build"
ANNOTATIONS = [
    FIXTURES / "youcookii_annotations_build.json",
    FIXTURES / "all_data_build.json",
    FIXTURES / "goalstep_build.json",
    FIXTURES / "keystep_build.json",
    FIXTURES / "steps_build.csv",
]
VIDEOS = {  # file under the videos folder -> (seconds, fps); yc_missing and hr_nosteps have none
    "yc_pasta.mp4": (30, 2),  # annotated as 40 s: the window is cut at 30 s
    "hr_plane.mp4": (30, 2),
    "gs_kitchen.mp4": (480, 1),
    "ks_bike.mp4": (290, 1),
    "table/tb_plant.mp4": (20, 2),  # found at any depth
}
CONFIG = InstructionBenchBuildConfig(name="ib-test", label_map=FIXTURES / "label_foodtype.csv", seed=0)

NATO = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo"]
NATO += ["lima", "mike"]
UTENSILS = ["metal whisk", "plastic ladle", "glass jug", "paper towel", "steel knife", "rubber spatula"]
RULE_BREAKS = {  # generation request -> (pair index, rule it breaks)
    "tb_plant:coarse": (1, "ordinal"),
    "ks_bike@0-245:fine": (2, "time"),
}
FILTER_DROPS = {  # question -> the filter that drops it
    "yc_pasta:coarse:q1": "blind",
    "yc_pasta:coarse:q2": "hallucination",
    "yc_pasta:fine:q1": "tricky",
    "yc_pasta:fine:q2": "unspecific",
}
GIVE_UP = {"hr_plane:coarse:q1"}  # the checkers never find the answer with the annotations
TOO_WEAK_ONCE = {"yc_pasta:fine:q3"}  # the first design is solved without the annotations
OTHERS = ("gs_kitchen@212-455:fine", 4)  # this pair's category is "Others: tool use"
CHECK_ITEM = re.compile(r"^(?P<qa>[^:]+:[^:]+:q\d+):a(?P<attempt>\d+)(?::.*)?$")


def pair(word: str, first_person: bool) -> tuple[str, str]:
    if first_person:
        return (
            f"What did I pick up for the {word} part of the task?",
            f"You picked up a wooden spoon for {word}.",
        )
    return f"Which utensil is used for the {word} part of the task?", f"A wooden spoon is used for {word}."


class ScriptedModel:
    """Test double for the builder's models: replies are a function of the request id
    (`step:item`) and of the prompt text. Every (request id, reply) is recorded so that a build
    can be replayed through the command line."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.recorded: dict[str, str] = {}
        self.calls = 0

    def __str__(self) -> str:
        return self.name

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        self.calls += 1
        text = "\n".join(p.text for m in messages for p in m.parts if hasattr(p, "text"))
        reply = json.dumps(self.reply(sample_id, text))
        self.recorded[sample_id] = reply
        return Completion(reply, "scripted")

    async def aclose(self) -> None:
        pass

    def reply(self, sample_id: str, text: str):
        step, item = sample_id.split(":", 1)
        if step == "generate":
            return self.pairs(item, text)
        if step.startswith("filter-"):
            dropped_by = FILTER_DROPS.get(item)
            name = step.removeprefix("filter-").removesuffix("-match")
            if step in ("filter-blind", "filter-tricky"):
                return {"answer": "a scripted guess", "reason": "scripted"}
            bad = dropped_by == name
            if step == "filter-tricky-match":
                return {"judgement": "No" if bad else "Yes", "reason": f"scripted {name}"}
            return {"judgement": "Yes" if bad else "No", "reason": f"scripted {name}"}
        if step == "mcq-wrong":
            answer = re.search(r"## Correct answer\n(.+)", text)[1]
            return {"wrong_answers": [answer.replace("wooden spoon", u) for u in UTENSILS]}
        if step == "mcq-pick":
            return {"picks": [1, 2, 3, 4], "reason": "scripted"}
        if step in ("mcq-with-info", "mcq-without-info"):
            found = CHECK_ITEM.match(item)
            options = re.findall(r"^([A-E])\. (.*)$", text, flags=re.MULTILINE)
            right = next(letter for letter, option in options if "wooden spoon" in option)
            wrong = next(letter for letter, option in options if "wooden spoon" not in option)
            qa, attempt = found["qa"], int(found["attempt"])
            if step == "mcq-with-info":
                return {"answer": wrong if qa in GIVE_UP else right}
            return {"answer": right if qa in TOO_WEAK_ONCE and attempt == 1 else wrong}
        raise AssertionError(f"unscripted request {sample_id}")

    def pairs(self, item: str, text: str) -> list[dict[str, str]]:
        clip, granularity, *retry = item.split(":")
        count = int(re.search(r"Write (\d+) question-answer pair", text)[1])
        first_person = "augmented-reality glasses" in text
        words = NATO[-count:] if retry else NATO[:count]
        found = []
        for index, word in enumerate(words):
            question, answer = pair(word, first_person)
            if not retry and RULE_BREAKS.get(f"{clip}:{granularity}", (None,))[0] == index:
                if RULE_BREAKS[f"{clip}:{granularity}"][1] == "ordinal":
                    question = f"What happens at the end of the {word} part of the task?"
                else:
                    answer = answer.removesuffix(".") + " after ten seconds."
            category = "Step sequencing" if granularity == "coarse" else "object attribute recognition"
            if (f"{clip}:{granularity}", index) == OTHERS:
                category = "Others: tool use"
            found.append({"Question": question, "Answer": answer, "Reason": "scripted", "Category": category})
        return found


def scripted_models(checker_names=("checker-1", "checker-2", "checker-3")):
    return ScriptedModel("writer"), [ScriptedModel(name) for name in checker_names]


@pytest.fixture(scope="module")
def videos(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("videos")
    for name, (seconds, fps) in VIDEOS.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        write_index_clip(folder / name, seconds=seconds, fps=fps, width=96, height=64, gop=10)
    return folder


@pytest.fixture(scope="module")
def built(videos, tmp_path_factory):
    out = tmp_path_factory.mktemp("built") / "bench"
    writer, checkers = scripted_models()
    outcome = build_instructionbench(ANNOTATIONS, videos, out, llm=writer, checkers=checkers, config=CONFIG)
    return outcome, writer, checkers


def drops(folder: Path) -> dict[str, str]:
    return {
        d["item"]: f"{d['stage']} | {d['reason']}"
        for d in map(json.loads, (folder / "build/drops.jsonl").read_text().splitlines())
    }


def test_every_stage_runs_and_logs_its_drops(built):
    outcome, writer, checkers = built
    stages = {s.name: s for s in outcome.stages}
    assert list(stages) == [
        "1 import",
        "2 clips",
        "3 generation",
        "4 blind filter",
        "5 hallucination filter",
        "6 tricky filter",
        "7 unspecific filter",
        "8 mcq",
        "9 letters",
    ]
    counts = {name: (s.before, s.after) for name, s in stages.items()}
    # 5 files -> 7 videos; 2 dropped, gs_kitchen trimmed into 2 clips, ks_bike into 1 -> 6 clips;
    # 6 clips x 2 granularities; 3 third-person clips x 2 x 3 pairs + 3 first-person x 2 x 5 = 48
    assert counts == {
        "1 import": (5, 7),
        "2 clips": (7, 6),
        "3 generation": (12, 48),
        "4 blind filter": (48, 47),
        "5 hallucination filter": (47, 46),
        "6 tricky filter": (46, 45),
        "7 unspecific filter": (45, 44),
        "8 mcq": (44, 43),
        "9 letters": (43, 43),
    }
    dropped = drops(outcome.folder)
    expected = {
        "yc_missing": "2 clips | missing video: no yc_missing.<ext> in the videos folder",
        "hr_nosteps": "2 clips | no steps",
        "tb_plant:coarse:rejected-1": "3 generation | rule ordinal: ",
        "ks_bike@0-245:fine:rejected-1": "3 generation | rule time: ",
        "yc_pasta:coarse:q1": "4 blind filter | answered without the video: matches the reference: scripted",
        "yc_pasta:coarse:q2": "5 hallucination filter | hallucinated or poorly designed: poorly designed",
        "yc_pasta:fine:q1": "6 tricky filter | missed even with the annotations: differs from the reference",
        "yc_pasta:fine:q2": "7 unspecific filter | unspecific or incomplete answer: unspecific answer",
        "hr_plane:coarse:q1": "8 mcq | gave up: no verified options in 10 designs; last: attempt 10: 3 of 3",
    }
    for item, start in expected.items():
        assert dropped.get(item, "").startswith(start), (item, dropped.get(item))
    assert len(dropped) == len(expected)
    assert stages["2 clips"].dropped == {"missing video": 1, "no steps": 1}
    assert stages["3 generation"].dropped == {"rule ordinal": 1, "rule time": 1}
    assert stages["8 mcq"].dropped == {"gave up": 1}
    report = (outcome.folder / "build/report.md").read_text()
    assert "| 2 clips | videos -> clips | 7 | 6 | missing video: 1; no steps: 1 |" in report
    assert "| 8 mcq | questions | 44 | 43 | gave up: 1 |" in report
    assert "gold letters: A 9, B 9, C 9, D 8, E 8" in report
    assert "1 clip window cut at the end of the video file: yc_pasta" in report
    assert "trimming left out 4 steps after the last clip of 2 videos" in report
    assert "## Statistics" in report
    assert (outcome.folder / "build/import_problems.txt").read_text().count("\n") == 1  # hr_nosteps
    # every filter judgement is kept, with its verdict and reason, whether it passed or not
    judged = [
        json.loads(line) for line in (outcome.folder / "build/judgements.jsonl").read_text().splitlines()
    ]
    assert len(judged) == 48 + 47 + 46 + 45
    blind = next(j for j in judged if j["qa_id"] == "yc_pasta:coarse:q1")
    assert (blind["name"], blind["passed"], blind["verdict"], blind["reason"]) == (
        "blind",
        False,
        "matches the reference",
        "scripted blind",
    )
    designs = {
        d["qa_id"]: d
        for d in map(json.loads, (outcome.folder / "build/mcq_designs.jsonl").read_text().splitlines())
    }
    assert len(designs) == 44 and designs["yc_pasta:fine:q3"]["attempts"] == 2
    assert designs["hr_plane:coarse:q1"]["given_up"] and len(designs["hr_plane:coarse:q1"]["history"]) == 10
    assert sum(m.calls for m in checkers) > 0 and writer.calls > 0


def test_output_validates_with_linked_open_and_mcq_samples(built):
    outcome, _, _ = built
    bench, problems = check_benchmark(outcome.folder)
    assert problems == [] and bench is not None
    assert bench.card.protocol.frames == "uniform:8" and bench.card.protocol.prompt == "ib_mcq_eval"
    by_id = {s.id: s for s in bench.samples}
    assert len(bench.samples) == 44 + 43
    open_ = by_id["yc_pasta:fine:q3:open"]
    mcq = by_id["yc_pasta:fine:q3:mcq"]
    assert open_.choices is None and open_.answer == "A wooden spoon is used for charlie."
    assert mcq.choices[mcq.answer] == open_.answer and len(mcq.choices) == 5
    assert open_.question == mcq.question
    meta = mcq.metadata.model_extra
    assert meta["qa_id"] == "yc_pasta:fine:q3" == open_.metadata.model_extra["qa_id"]
    assert (meta["format"], meta["source"], meta["perspective"], meta["granularity"]) == (
        "mcq",
        "youcook2",
        "third",
        "fine",
    )
    assert meta["theme"] == "spaghetti with tomato sauce" and meta["mcq_attempts"] == 2
    assert mcq.metadata.category == "object attribute recognition"
    assert (mcq.videos[0].path, mcq.videos[0].start_s, mcq.videos[0].end_s) == (
        "media/yc_pasta.mp4",
        0.0,
        30.0,
    )
    plane = by_id["hr_plane:fine:q1:mcq"]
    assert (plane.videos[0].start_s, plane.videos[0].end_s) == (4.0, 26.0)
    assert "hr_plane:coarse:q1:open" in by_id and "hr_plane:coarse:q1:mcq" not in by_id  # gave up
    trimmed = by_id["gs_kitchen@212-455:coarse:q1:open"]
    assert trimmed.videos[0].path == "media/gs_kitchen.mp4"
    assert (trimmed.videos[0].start_s, trimmed.videos[0].end_s) == (212.0, 455.0)
    assert trimmed.metadata.model_extra["perspective"] == "first"
    assert by_id["gs_kitchen@212-455:fine:q5:open"].metadata.category == "Others(tool use)"
    assert by_id["tb_plant:coarse:q3:open"].question.startswith("Which utensil is used for the mike part")
    assert sorted(bench.clips) == sorted(
        ["yc_pasta", "hr_plane", "gs_kitchen@2-245", "gs_kitchen@212-455", "ks_bike@0-245", "tb_plant"]
    )
    assert (outcome.folder / "media/table/tb_plant.mp4").is_file()


def test_statistics_match_hand_counts(built):
    outcome, _, _ = built
    stats = outcome.stats
    assert stats["questions"] == {"n": 87, "mcq": 43, "open_ended": 44}
    assert stats["videos"]["n"] == 5 and stats["clips"] == 6
    assert stats["gold_letters"] == {"A": 9, "B": 9, "C": 9, "D": 8, "E": 8}
    assert stats["options_per_question"] == {5: 43}
    # third person: 11-word questions, 7-word answers and options; first person: 12 and 8.
    # Open-ended: 14 third-person and 30 first-person; MCQ: 13 and 30.
    assert stats["question_words"]["mean"] == round((11 * 27 + 12 * 60) / 87, 3)
    assert stats["answer_words"]["mean"] == round((7 * 14 + 8 * 30) / 44, 3)
    assert stats["option_words"]["mean"] == round((7 * 13 + 8 * 30) / 43, 3)
    windows = stats["clip_windows"]
    assert windows["duration_s"]["n"] == 6
    assert windows["duration_s"]["mean"] == round((30 + 22 + 243 + 243 + 245 + 20) / 6, 3)
    assert windows["duration_histogram"]["<1 min"] == 3 and windows["duration_histogram"]["3-10 min"] == 3
    assert stats["by"]["source"]["open-ended"] == {
        "goalstep": 20,
        "hirest": 6,
        "keystep": 10,
        "table": 6,
        "youcook2": 2,
    }
    assert stats["by"]["source"]["mcq"]["hirest"] == 5
    assert stats["categories"]["Others(tool use)"] == 2  # open-ended + MCQ
    written = json.loads((outcome.folder / "build/stats.json").read_text())
    assert written["questions"] == stats["questions"]
    # `vqakit stats` on the built folder gives the same counts
    result = CliRunner().invoke(
        stats_command, [str(outcome.folder), "--out", str(outcome.folder.parent / "s.json")]
    )
    assert result.exit_code == 0, result.output
    assert "87 questions (43 multiple choice, 44 open-ended), 5 videos, 6 clips" in result.output
    listed = json.loads((outcome.folder.parent / "s.json").read_text())
    assert listed["gold_letters"] == stats["gold_letters"] and listed["categories"] == stats["categories"]


def test_rerun_makes_no_model_calls(built, videos):
    outcome, _, _ = built
    before = (outcome.folder / "samples.jsonl").read_text()
    writer, checkers = scripted_models()
    again = build_instructionbench(
        ANNOTATIONS, videos, outcome.folder, llm=writer, checkers=checkers, config=CONFIG
    )
    assert writer.calls == 0 and all(c.calls == 0 for c in checkers)
    assert again.reused_calls > 500
    assert (outcome.folder / "samples.jsonl").read_text() == before
    assert [s.as_dict() for s in again.stages] == [s.as_dict() for s in outcome.stages]


def eval_replies(bench) -> tuple[dict[str, str], dict[str, str]]:
    """The evaluated model's replies and the judges', by sample id: MCQ replies are right, one
    is wrong and two are sentences the `extract` judge reads; open-ended answers are judged yes
    except two."""
    model, judge = {}, {}
    mcq = [s for s in bench.samples if s.is_mcq]
    open_ = [s for s in bench.samples if not s.is_mcq]
    for number, sample in enumerate(mcq):
        right = "ABCDE"[sample.answer]
        if number == 0:
            model[sample.id] = "ABCDE"[(sample.answer + 1) % 5]
        elif number in (1, 2):
            model[sample.id] = "The spoon, I am fairly sure of it."
            judge[sample.id] = right if number == 1 else "ABCDE"[(sample.answer + 1) % 5]
        else:
            model[sample.id] = right
    for number, sample in enumerate(open_):
        model[sample.id] = "a wooden spoon"
        judge[sample.id] = ("No" if number < 2 else "Yes") + ". Reason: scripted."
    return model, judge


@pytest.mark.parametrize("frames", ["uniform:8", "uniform:16"])
def test_evaluates_with_the_paper_protocol_and_reports(built, tmp_path, frames):
    outcome, _, _ = built
    bench = load_benchmark(outcome.folder)
    model, judge = eval_replies(bench)
    files = {}
    for name, replies in (("model", model), ("judge", judge)):
        files[name] = tmp_path / f"{name}.jsonl"
        files[name].write_text(
            "".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in replies.items())
        )
    config = EvalConfig(
        bench=str(outcome.folder),
        model=f"replay:{files['model']}",
        frames=frames,
        short_side=32,
        judges={"open": f"replay:{files['judge']}", "extract": f"replay:{files['judge']}"},
    )
    run = run_eval(config, tmp_path / "run")
    results = run.results
    predictions = [json.loads(line) for line in (tmp_path / "run/predictions.jsonl").read_text().splitlines()]
    assert len(predictions) == 87 and all(p["error"] is None for p in predictions)
    shown = next(p for p in predictions if p["sample_id"] == "gs_kitchen@212-455:coarse:q1:mcq")
    assert len(shown["frames_s"]) == int(frames.split(":")[1])
    assert all(212.0 <= t < 455.0 for t in shown["frames_s"])
    assert "Reply with the letter of the correct option only." in shown["prompt"]
    # MCQ: 43 - 1 wrong - 1 wrong after extraction = 41 right; open-ended: 44 - 2 = 42 yes
    assert (results["mcq"]["n"], results["mcq"]["accuracy"]) == (43, pytest.approx(41 / 43))
    assert (results["open_ended"]["n"], results["open_ended"]["accuracy"]) == (44, pytest.approx(42 / 44))
    groups, open_groups = results["groups"], results["open_ended_groups"]  # each kind on its own
    sources = ["goalstep", "hirest", "keystep", "table", "youcook2"]
    assert sorted(groups["source"]) == sorted(open_groups["source"]) == sources
    assert groups["source"]["hirest"]["n"] == 5 and open_groups["source"]["hirest"]["n"] == 6
    assert groups["category"]["Others(tool use)"]["n"] == 1
    assert "Others(tool use)" in open_groups["category"]
    assert results["overall"] is None  # MCQ and open-ended both scored: no overall
    judged = [json.loads(line) for line in (tmp_path / "run/judgments.jsonl").read_text().splitlines()]
    assert any(j.get("raw", "").startswith("No. Reason") for j in judged)  # the reason is kept
    assert (tmp_path / "run/report.html").is_file()


def test_command_line_replays_a_build(videos, tmp_path):
    subset = [FIXTURES / "youcookii_annotations_build.json", FIXTURES / "steps_build.csv"]
    replays = {name: tmp_path / f"{name}.jsonl" for name in ("writer", "c1", "c2", "c3")}
    specs = {name: f"replay:{path}" for name, path in replays.items()}
    writer, checkers = scripted_models([specs["c1"], specs["c2"], specs["c3"]])
    config = InstructionBenchBuildConfig(name="ib-cli", granularities=("coarse",), label_map=CONFIG.label_map)
    recorded = build_instructionbench(
        subset, videos, tmp_path / "library", llm=writer, checkers=checkers, config=config
    )
    for name, model in zip(replays, [writer, *checkers], strict=True):
        replays[name].write_text(
            "".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in model.recorded.items())
        )
    out = tmp_path / "cli"
    arguments = [
        *[part for path in subset for part in ("--annotations", str(path))],
        "--label-map",
        str(CONFIG.label_map),
        "--videos",
        str(videos),
        "--llm",
        specs["writer"],
        "--checkers",
        ",".join(specs[name] for name in ("c1", "c2", "c3")),
        *([] if find_spec("sentence_transformers") else ["--embedder", "none"]),  # default: minilm
        "--granularity",
        "coarse",
        "--name",
        "ib-cli",
        "--out",
        str(out),
    ]
    result = CliRunner().invoke(instructionbench, arguments)
    assert result.exit_code == 0, result.output
    assert (
        f"{recorded.open_ended} open-ended and {recorded.mcq} multiple-choice questions, 2 clips"
        in result.output
    )
    assert "8 mcq" in result.output  # the stage lines (stderr is mixed in)
    assert (out / "samples.jsonl").read_text() == (tmp_path / "library/samples.jsonl").read_text()
    again = CliRunner().invoke(instructionbench, arguments)
    assert again.exit_code == 0 and "model steps reused" in again.output


def test_bad_inputs_are_clear_errors(videos, tmp_path):
    writer, checkers = scripted_models()
    bad = tmp_path / "goalstep_bad.json"
    bad.write_text('{"videos": [')
    with pytest.raises(InputError, match=r"goalstep_bad\.json: invalid JSON"):
        build_instructionbench([bad], videos, tmp_path / "out", llm=writer, checkers=checkers, config=CONFIG)
    with pytest.raises(InputError, match="three or more different models"):
        build_instructionbench(ANNOTATIONS, videos, tmp_path / "out", llm=writer, checkers=checkers[:2])
    runner = CliRunner()
    specs = []
    for number in range(4):
        (tmp_path / f"r{number}.jsonl").write_text("")
        specs.append(f"replay:{tmp_path / f'r{number}.jsonl'}")
    common = [
        "--annotations",
        str(bad),
        "--videos",
        str(videos),
        "--llm",
        specs[0],
        "--out",
        str(tmp_path / "cli"),
    ]
    result = runner.invoke(instructionbench, [*common, "--checkers", ",".join(specs[1:])])
    assert result.exit_code == 1 and "goalstep_bad.json: invalid JSON" in result.output
    result = runner.invoke(instructionbench, [*common, "--checkers", ",".join([specs[1], *specs[1:3]])])
    assert result.exit_code == 2 and "three or more different models" in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(InputError, match="no video files"):
        build_instructionbench(ANNOTATIONS, empty, tmp_path / "out2", llm=writer, checkers=checkers)
    shutil.rmtree(empty)


def test_symlinked_videos_build_and_a_link_in_out_stops_before_any_model_step(videos, tmp_path):
    (tmp_path / "store").mkdir()
    shutil.copy(videos / "table/tb_plant.mp4", tmp_path / "store/tb_plant.mp4")
    (tmp_path / "links/table").mkdir(parents=True)
    (tmp_path / "links/table/tb_plant.mp4").symlink_to("../../store/tb_plant.mp4")  # relative
    config = InstructionBenchBuildConfig(name="ib-links", seed=0)
    writer, checkers = scripted_models()
    out = tmp_path / "out"
    build_instructionbench(
        [FIXTURES / "steps_build.csv"], tmp_path / "links", out, llm=writer, checkers=checkers, config=config
    )
    placed = out / "media/table/tb_plant.mp4"
    assert not placed.is_symlink() and placed.stat().st_ino == (tmp_path / "store/tb_plant.mp4").stat().st_ino
    assert check_benchmark(out)[1] == []
    # a link inside --out: refused before the first model step, nothing written through it (a
    # folder the builder did not write is refused as such; its own, for the link)
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "out2").mkdir()
    (tmp_path / "out2/media").symlink_to(tmp_path / "elsewhere")
    shutil.rmtree(out / "media")
    (out / "media").symlink_to(tmp_path / "elsewhere")
    for target, refusal, said in (
        (
            tmp_path / "out2",
            OutFolderRefused,
            r"out2 exists and holds files vqakit build instructionbench did not",
        ),
        (out, InputError, r"out/media: a symbolic link inside the output folder"),
    ):
        writer, checkers = scripted_models()
        with pytest.raises(refusal, match=said):
            build_instructionbench(
                [FIXTURES / "steps_build.csv"], tmp_path / "links", target, llm=writer, checkers=checkers,
                config=config,
            )  # fmt: skip
        assert writer.calls == 0 and list((tmp_path / "elsewhere").iterdir()) == []
