"""`vqakit build egofact` over synthetic videos and a synthetic event file, with scripted model
replies that exercise every stage and every kind of drop, then resume and the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sentence_transformers")

from vqakit.benchmarks import load_benchmark
from vqakit.models import Completion, TextEmbedder
from vqakit.systems.egofact.builder import EgoFactBuildConfig, InputError, build_egofact, read_events
from vqakit.systems.egofact.builder.inputs import read_passages
from vqakit.video import write_index_clip

EVENTS = [
    # bikeA, window 0: two events 3 s apart (local + temporal questions), one without an object
    ("bikeA.mp4", 2.0, "C picks up the wrench from the table"),
    ("bikeA.mp4", 5.0, "C turns the pedal"),
    ("bikeA.mp4", 12.0, "C looks around"),
    ("bikeA.mp4", 3.0, "metal clinks", "sound"),
    # bikeA, window 1: a single event (dropped by the event count)
    ("bikeA.mp4", 40.0, "C stirs the soup"),
    # bikeB, window 0: the same action as bikeA's wrench on another object, in a similar clip
    ("bikeB.mp4", 3.0, "C picks up the pliers from the table"),
    ("bikeB.mp4", 9.0, "C oils the chain"),
    ("bikeB.mp4", 40.0, "C wipes the frame"),
    ("bikeB.mp4", 45.0, "C checks the tyre"),
    # carA: the same content in both windows (the second is not representative)
    ("carA.mp4", 4.0, "C opens the hood"),
    ("carA.mp4", 6.0, "C checks the dipstick in the engine"),
    ("carA.mp4", 20.0, "C takes the screwdriver from the screwdriver case"),
    ("carA.mp4", 34.0, "C opens the hood"),
    ("carA.mp4", 36.0, "C checks the dipstick in the engine"),
    ("short.mp4", 1.0, "C waves"),
]

PASSAGES = {
    "pedal": ("How to replace bicycle pedals", "The left pedal of a bicycle has a reverse thread."),
    "saddle": ("How to adjust a bicycle saddle", "Set the saddle height so the knee stays slightly bent."),
    "lock": ("How to use a bicycle lock", "Pass the bicycle lock through the frame and the rear wheel."),
    "bell": ("How to fit a bicycle bell", "A bicycle bell is clamped to the handlebar near the grip."),
    "pump": ("How to use a bicycle pump", "Match the bicycle pump head to the valve type before pumping."),
    "bread": ("How to bake bread", "Knead the dough for ten minutes and let it rise for an hour."),
}

NARRATIONS = {  # window -> (detailed narration, keywords); equal keywords put windows in one cluster
    "bikeA-w000": (
        "a video that shows a bicycle being repaired on a workbench.",
        {"bicycle repair": 9, "workshop": 5},
    ),
    "bikeA-w001": ("a video that shows soup being cooked in a kitchen.", {"cooking": 9, "kitchen": 6}),
    "bikeB-w000": (
        "a video that shows a bicycle being repaired on a workbench.",
        {"chain maintenance": 9, "garage": 4},
    ),
    "carA-w000": (
        "a video that shows a car engine being checked in a driveway.",
        {"car engine": 9, "driveway": 5},
    ),
    "carA-w001": (
        "a video that shows a car engine being checked in a driveway.",
        {"car engine": 9, "driveway": 5},
    ),
}

OPTIONS = {  # question -> the options the distractor step proposes (and its score)
    "bikeA-w000-L01": (["pedal", "saddle", "bell", "pump", "helmet", "light"], 8),
    "bikeA-w000-T00a": (["pedal", "saddle", "lock", "bell", "helmet", "light"], 9),
    "bikeB-w000-L01": (["gear", "spoke", "rim", "brake", "fork", "seat"], 8),  # the answer is missing
    "carA-w000-L00": (["hood", "trunk", "door", "mirror", "wiper", "seat"], 5),  # low quality
    "carA-w000-L01": (["dipstick", "funnel", "rag", "jack", "cap", "hose"], 8),
    "carA-w000-T00a": (["dipstick", "funnel", "rag", "jack", "cap", "hose"], 8),
    "carA-w000-T00b": (["hood", "trunk", "door", "mirror", "wiper", "seat"], 8),
}
SOLVED_BLIND = {"carA-w000-L01"}  # the text-only model finds the answer without the video
NOT_VALID = {"carA-w000-T00b"}  # the gold event does not lead the checker to the answer
INVALID_PAIRS, TRIVIAL_PAIRS = {"pump"}, {"bell"}  # statements that fail verification


def options_of(text: str) -> list[str]:
    return re.findall(r"^[A-F]\. (.*)$", text, flags=re.MULTILINE)


def fact(name: str) -> str:
    """The scripted true statement about an object (it does not name the object)."""
    return f"it is kept in good order by rule {sum(map(ord, name))}."


class ScriptedBuildModel:
    """Test double for the builder's LLM and VLM: replies are a function of the step and item (the
    request's sample id) and of the prompt text; every (sample id, reply) is recorded, so a run
    can be replayed through the CLI."""

    def __init__(self) -> None:
        self.recorded: dict[str, str] = {}
        self.calls = 0

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        self.calls += 1
        text = "\n".join(p.text for m in messages for p in m.parts if hasattr(p, "text"))
        reply = self.reply(sample_id, text)
        self.recorded[sample_id] = reply
        return Completion(reply, "scripted")

    def reply(self, sample_id: str, text: str) -> str:
        step, item = sample_id.split(":", 1)
        if step == "caption":
            return json.dumps({"caption": f"the camera wearer works at a bench ({item})"})
        if step == "narrate":
            window = item
            if window == "bikeB-w001":
                return "I would rather not describe this clip."  # no JSON, even after repairs
            detailed, keywords = NARRATIONS[window]
            activity = "checking a car engine" if window.startswith("car") else "repairing a bicycle"
            return json.dumps(
                {
                    "concise": detailed.split(" being")[0].replace("shows a", "shows someone working on a"),
                    "detailed": detailed,
                    "activity": activity,
                    "keywords": [{"keyword": k, "weight": w} for k, w in keywords.items()],
                }
            )
        if step == "structure":
            annotation = re.search(r"Annotation: C (\w+(?: up)?) (?:the (\w+))?(.*)", text)
            verb, patient, rest = annotation.groups()
            return json.dumps(
                {
                    "rewritten": f"the camera wearer {verb} the {patient}{rest}"
                    if patient
                    else f"the camera wearer {verb}",
                    "agent": "the camera wearer",
                    "action": verb.split()[0],
                    "action_phrase": verb,
                    "patient": patient,
                    "patient_canonical": patient,
                    "patient_location": None,
                    "patient_destination": None,
                    "instrument": None,
                    "event_location": None,
                    "location_phrase": rest.strip() or None,
                }
            )
        if step == "distractors":
            options, score = OPTIONS[item]
            return json.dumps({"options": options, "reasoning": "scripted", "score": score})
        if step == "blind":
            options = options_of(text)
            query = item.removesuffix("-2h")
            answer = OPTIONS[query][0][0]
            if item in SOLVED_BLIND:
                return json.dumps({"answer": "ABCDEF"[options.index(answer)]})
            wrong = next(i for i, o in enumerate(options) if o != answer and fact(answer) not in o.lower())
            return json.dumps({"answer": "ABCDEF"[wrong]})
        if step == "statements":
            name = item.split("|")[0]
            return json.dumps(
                {
                    "factual": fact(name),
                    "counterfactual": [f"it never needs care, claim {n}." for n in range(3)],
                }
            )
        if step in ("verify-with", "verify-without"):
            name = item.split("|")[0]
            options = options_of(text)
            factual = options.index(fact(name))
            counterfactual = next(i for i in range(4) if i != factual)
            picks_fact = (step == "verify-with") != (
                name in (INVALID_PAIRS if step == "verify-with" else TRIVIAL_PAIRS)
            )
            return json.dumps({"answer": "ABCD"[factual if picks_fact else counterfactual]})
        if step == "validity":
            options = options_of(text)
            event = re.search(r"The event asked about: the camera wearer \w+(?: up)? the (\w+)", text)[1]
            if item in NOT_VALID:
                return json.dumps({"answer": "ABCDEF"[next(i for i, o in enumerate(options) if o != event)]})
            for i, option in enumerate(options):
                if option == event or option.lower().endswith(fact(event)):
                    return json.dumps({"answer": "ABCDEF"[i]})
        raise AssertionError(f"unscripted request {sample_id}")

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("inputs")
    (root / "videos").mkdir()
    for name, seconds in (("bikeA", 60), ("bikeB", 60), ("carA", 60), ("short", 20)):
        write_index_clip(root / f"videos/{name}.mp4", seconds=seconds, fps=5, width=96, height=64, gop=25)
    events = root / "events.jsonl"
    events.write_text(
        "".join(
            json.dumps(
                {"video": e[0], "time_s": e[1], "text": e[2], **({"kind": e[3]} if len(e) > 3 else {})}
            )
            + "\n"
            for e in EVENTS
        )
    )
    passages = root / "passages.jsonl"
    passages.write_text(
        "".join(
            json.dumps({"id": f"howto-{k}", "title": t, "text": x, "source": "written for this test"}) + "\n"
            for k, (t, x) in PASSAGES.items()
        )
    )
    return {"videos": root / "videos", "events": events, "passages": passages}


@pytest.fixture(scope="module")
def minilm():
    return TextEmbedder("minilm")


CONFIG = EgoFactBuildConfig(keep_ratio=0.8, passage_threshold=0.45, name="egofact-test")


@pytest.fixture(scope="module")
def built(inputs, minilm, tmp_path_factory):
    out = tmp_path_factory.mktemp("built") / "bench"
    llm, vlm = ScriptedBuildModel(), ScriptedBuildModel()
    outcome = build_egofact(
        inputs["videos"],
        inputs["events"],
        inputs["passages"],
        out,
        llm=llm,
        vlm=vlm,
        text_embedder=minilm,
        config=CONFIG,
    )
    return outcome, llm, vlm


def drops(folder: Path) -> dict[str, str]:
    return {
        d["item"]: f"{d['stage']} | {d['reason']}"
        for d in map(json.loads, (folder / "build/drops.jsonl").read_text().splitlines())
    }


def test_every_stage_runs_and_logs_its_drops(built):
    outcome, llm, vlm = built
    stages = {s.name: s for s in outcome.stages}
    assert list(stages) == [
        "1 windows",
        "2 narration",
        "3 selection",
        "4 events",
        "5 templates",
        "6 disambiguation",
        "7 distractors",
        "7 blind filter",
        "8 two-hop",
        "9 reliability",
    ]
    assert (stages["1 windows"].before, stages["1 windows"].after) == (4, 6)  # videos -> windows
    assert (stages["2 narration"].after, stages["3 selection"].after) == (5, 3)
    assert stages["4 events"].before == 8 and stages["4 events"].after == 7
    dropped = drops(outcome.folder)
    expected = {
        "short.mp4": "1 windows | shorter than a window",
        "bikeB-w001": "2 narration | model step failed: invalid_output",
        "carA-w001": "3 selection | not representative: cluster",
        "bikeA-w001": "3 selection | too few events: 1 < 2",
        "bikeA-w000-e02": "4 events | no object",
        "carA-w000-L02": "5 templates | names its answer: 'screwdriver'",
        "bikeA-w000-L00": "6 disambiguation | ambiguous: similar clip bikeB-w000",
        "bikeB-w000-L00": "6 disambiguation | ambiguous: similar clip bikeA-w000",
        "bikeA-w000-T00b": "6 disambiguation | ambiguous: similar clip bikeB-w000",
        "bikeB-w000-L01": "7 distractors | invalid options: the answer 'chain' is not among",
        "carA-w000-L00": "7 distractors | low quality: score 5 < 7",
        "carA-w000-L01": "7 blind filter | answered without the video",
        "pump|howto-pump": "8 two-hop | statements not valid",
        "bell|howto-bell": "8 two-hop | statements trivial",
        "bikeA-w000-L01": "8 two-hop | too few verified distractor pairs: 1 < 2",
        "carA-w000-T00a": "8 two-hop | no verified passage statements for the answer: 'dipstick'",
        "carA-w000-T00b": "9 reliability | not valid",
    }
    for item, start in expected.items():
        assert dropped.get(item, "").startswith(start), (item, dropped.get(item))
    assert stages["3 selection"].dropped == {"not representative": 1, "too few events": 1}
    report = (outcome.folder / "build/report.md").read_text()
    assert "| 7 distractors | questions | 7 | 5 | invalid options: 1; low quality: 1 |" in report
    assert "no verified passage statements for the answer: 2" in report
    assert vlm.calls == 6 * 10  # a screenshot every 3 s of every window
    timeline = llm.recorded  # the narration prompt saw captions, events and sounds
    assert "bikeA-w000" in "".join(timeline)


def test_output_is_a_valid_egofact_benchmark(built):
    outcome, _, _ = built
    bench = load_benchmark(outcome.folder, media=True)
    ids = sorted(s.id for s in bench.samples)
    assert ids == ["bikeA-w000-L01", "bikeA-w000-T00a", "bikeA-w000-T00a-2h", "carA-w000-T00a"]
    assert sorted(bench.clips) == ["bikeA-w000", "bikeB-w000", "carA-w000"]
    two_hop = next(s for s in bench.samples if s.metadata.hop == 2)
    pairs = two_hop.metadata.model_extra["pairs"]
    assert [p["object"] for p in pairs] == ["saddle", "lock", "pedal"]
    # each pair's two statements are set in the task of its own passage, not the video's activity
    assert [p["context"] for p in pairs] == [
        "adjusting a bicycle saddle",
        "using a bicycle lock",
        "replacing bicycle pedals",
    ]
    assert len(two_hop.choices) == 6
    for pair in pairs:
        for kind in ("counterfactual", "factual"):
            assert two_hop.choices[pair[kind]].startswith(f"When {pair['context']}. It ")
    assert two_hop.choices[two_hop.answer] == "When replacing bicycle pedals. " + fact("pedal").capitalize()
    assert two_hop.answer == pairs[2]["factual"] and two_hop.gold_passages == ["howto-pedal"]
    assert sorted({p["passage"] for p in pairs}) == sorted(bench.passages)
    assert two_hop.question.startswith(
        "In a video that shows someone working on a bicycle. After the camera wearer"
    )
    assert "which statement is true about the object that the camera wearer turns?" in two_hop.question
    local = next(s for s in bench.samples if s.id == "bikeA-w000-L01")
    assert local.question == (
        "In a video that shows someone working on a bicycle, what is the object that the camera wearer turns?"
    )
    assert local.choices[local.answer] == "pedal" and local.gold_clips == ["bikeA-w000"]
    assert local.videos[0].start_s == 0.0 and local.videos[0].end_s == 30.0
    assert local.metadata.category == "Local 1-hop" and local.metadata.grounding == "local"
    temporal = next(s for s in bench.samples if s.id == "carA-w000-T00a")
    assert temporal.metadata.model_extra["direction"] == "after" and temporal.metadata.grounding == "temporal"
    assert len({s.answer for s in bench.samples if s.metadata.hop == 1}) > 1  # gold letters are spread
    assert (outcome.folder / "media/bikeA.mp4").stat().st_size > 0


def test_rerun_reuses_every_model_step(built, inputs, minilm):
    outcome, _, _ = built
    before = (outcome.folder / "samples.jsonl").read_text()
    silent_llm, silent_vlm = ScriptedBuildModel(), ScriptedBuildModel()
    again = build_egofact(
        inputs["videos"],
        inputs["events"],
        inputs["passages"],
        outcome.folder,
        llm=silent_llm,
        vlm=silent_vlm,
        text_embedder=minilm,
        config=CONFIG,
    )
    assert silent_vlm.calls == 0
    assert silent_llm.calls == 3  # only the narration that failed is asked again (with its repairs)
    assert again.reused_calls > 40
    assert (outcome.folder / "samples.jsonl").read_text() == before


def test_cli_replays_the_build(built, inputs, tmp_path):
    _, llm, vlm = built
    replays = {}
    for name, model in (("llm", llm), ("vlm", vlm)):
        replays[name] = tmp_path / f"{name}.jsonl"
        replays[name].write_text(
            "".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in model.recorded.items())
        )
    out = tmp_path / "cli-bench"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "build",
            "egofact",
            "--videos",
            str(inputs["videos"]),
            "--events",
            str(inputs["events"]),
            "--passages",
            str(inputs["passages"]),
            "--llm",
            f"replay:{replays['llm']}",
            "--vlm",
            f"replay:{replays['vlm']}",
            "--out",
            str(out),
            "--keep-ratio",
            "0.8",
            "--passage-threshold",
            "0.45",
            "--name",
            "egofact-test",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "4 questions, 3 clips, 3 passages" in result.stdout
    assert "9 reliability" in result.stderr
    assert (out / "samples.jsonl").read_text() == (built[0].folder / "samples.jsonl").read_text()
    validated = subprocess.run(
        [sys.executable, "-m", "vqakit", "validate", str(out)], capture_output=True, text=True, timeout=120
    )
    assert validated.returncode == 0, validated.stdout + validated.stderr


def test_bad_inputs_name_the_file_and_line(inputs, tmp_path):
    videos = {"bikeA.mp4": inputs["videos"] / "bikeA.mp4"}
    bad = tmp_path / "events.jsonl"
    bad.write_text(
        '{"video": "bikeA.mp4", "time_s": 1, "text": "C waves"}\n{"video": "bikeA.mp4", "text": "x"}\n'
    )
    with pytest.raises(InputError, match=r"events.jsonl:2: time_s: Field required"):
        read_events(bad, videos)
    bad.write_text('{"video": "nowhere.mp4", "time_s": 1, "text": "C waves"}\n')
    with pytest.raises(InputError, match=r"names video 'nowhere\.mp4'"):
        read_events(bad, videos)
    bad.write_text("not json\n")
    with pytest.raises(InputError, match=r"events.jsonl:1: -: malformed JSON"):
        read_events(bad, videos)


def test_clip_similarity_from_screenshots_with_an_image_embedder(inputs, minilm, tmp_path):
    pytest.importorskip("transformers")
    from tiny_models import build_tiny_clip

    from vqakit.models import ImageTextEmbedder

    image = ImageTextEmbedder(f"clip:{build_tiny_clip(tmp_path / 'clip')}")
    outcome = build_egofact(
        inputs["videos"],
        inputs["events"],
        inputs["passages"],
        tmp_path / "bench",
        llm=ScriptedBuildModel(),
        vlm=None,
        text_embedder=minilm,
        image_embedder=image,
        config=CONFIG,
    )
    assert not any("--image-embedder" in note for note in outcome.notes)
    assert any("--vlm" in note for note in outcome.notes)  # no captions: annotations only
    stage = next(s for s in outcome.stages if s.name == "6 disambiguation")
    assert stage.before == 10 and stage.after + sum(stage.dropped.values()) == stage.before
    load_benchmark(outcome.folder, media=True)


def test_each_pair_is_set_in_the_task_of_its_passage():
    from vqakit.schema import Passage
    from vqakit.systems.egofact.builder.two_hop import gerund, passage_task

    assert [gerund(v) for v in ("fix", "make", "cut", "tie", "see", "open", "quit", "oil", "sew", "be")] == [
        "fixing",
        "making",
        "cutting",
        "tying",
        "seeing",
        "opening",
        "quitting",
        "oiling",
        "sewing",
        "being",
    ]

    def task(title):
        return passage_task(Passage(id="p", text="t", title=title))

    assert task("How to replace bicycle pedals") == "replacing bicycle pedals"
    assert task("How to Fix a Lighter (with Pictures)") == "fixing a lighter"
    assert task("How to Adjust BMX Brakes: 7 Steps") == "adjusting BMX brakes"
    assert task("Bicycle chain care") == "it comes to bicycle chain care"
    assert task(None) is None


def test_bad_event_and_passage_lines_are_skipped_and_listed(inputs, tmp_path):
    videos = {"bikeA.mp4": inputs["videos"] / "bikeA.mp4"}
    events = tmp_path / "events.jsonl"
    events.write_bytes(
        b'{"video": "bikeA.mp4", "time_s": 1, "text": "C waves"}\r'
        b'{"video": "bikeA.mp4", "time_s": 1' + b"0" * 400 + b', "text": "C jumps"}\r'
        b'{"video": "nowhere.mp4", "time_s": 2, "text": "C sits"}\r'
    )
    problems: list = []
    assert [e.text for e in read_events(events, videos, problems)] == ["C waves"]
    assert [str(p) for p in problems] == [
        f"{events}:2: time_s: number 100000000000...(401 digits) does not fit in 64 bits",
        f"{events}: video: 'nowhere.mp4' (event 'C sits') is not in the videos folder",
    ]
    passages = tmp_path / "passages.jsonl"
    passages.write_text('{"id": "p", "text": "a"}\n{"id": "p", "text": "b"}\n{"id": 3}\n')
    problems = []
    assert [p.text for p in read_passages(passages, problems)] == ["a"]
    assert [p.field for p in problems] == ["id", "id"] and "appears twice" in problems[1].message
