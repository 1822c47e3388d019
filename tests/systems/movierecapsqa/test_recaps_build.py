"""`vqakit build movierecapsqa` end to end, and the labels of imported questions.

The build reads a manifest of three recaps: a synthetic "street" recap cut from the sample clips
(street footage with cuts, an animated film, a rendered crossing that the movie does not have,
the campus camera, the rotating Earth) with a narration SRT and a synthetic movie that shows
the same footage in another order, with VTT subtitles; the sample `world.mp4` with the sample
`s1.srt` as a recap without a movie; and a recap whose video is missing. Scripted models (test
doubles answering by request id `step:item`) make every stage run and every kind of drop happen.
"""

from __future__ import annotations

import json
import re
import shutil
from collections import Counter
from pathlib import Path

import av
import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

import vqakit.systems.movierecapsqa  # noqa: F401  (registers the mr_ prompts)
from vqakit.cli.build_movierecapsqa import movierecapsqa as build_command
from vqakit.cli.label_movierecapsqa import movierecapsqa as label_command
from vqakit.cli.validate import validate
from vqakit.models import Completion
from vqakit.systems.movierecapsqa.builder import (
    InputError,
    RecapsBuildConfig,
    build_movierecapsqa,
    group_scenes,
    read_manifest,
)
from vqakit.systems.movierecapsqa.builder.alignment import movie_window
from vqakit.systems.movierecapsqa.builder.rules import fact_problem
from vqakit.systems.movierecapsqa.classify import read_labels
from vqakit.systems.movierecapsqa.importer import import_movierecapsqa
from vqakit.systems.movierecapsqa.labeling import label_benchmark
from vqakit.systems.movierecapsqa.tables import TABLES, read_tables, write_tables
from vqakit.video import Resize, Timestamps, sample_frames

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures/movierecapsqa"
BUILD = FIXTURES / "build"
MEDIA = Path(__file__).resolve().parents[3] / "src/vqakit/benchmarks/sample/media"
FPS, SIZE = 10, (160, 90)
RECAP = [  # (file, seconds from its start): recap time 0-10 street, 10-15.2 film, 15.2-24.2
    ("bikes.mp4", 10.0),  # crossing, 24.2-36.2 campus, 36.2-48.2 Earth
    ("bigbuckbunny.mp4", 5.2),
    ("synthetic/crossing.mp4", 9.0),
    ("pedestrians.mp4", 12.0),
    ("world.mp4", 12.0),
]
MOVIE = [  # movie time 0-20 campus, 20-30 street, 30-50 Earth, 50-55.2 film, 55.2-65.2 counting
    ("pedestrians.mp4", 20.0),
    ("bikes.mp4", 10.0),
    ("world.mp4", 20.0),
    ("bigbuckbunny.mp4", 5.2),
    ("synthetic/counting.mp4", 10.0),
]
CONFIG = RecapsBuildConfig(min_segment_s=5, max_segment_s=16, questions_per_segment=3, name="mr-build-test")
RELEASE_FIELDS = {
    "recaps": ["video_id", "movie_name", "subtitle_url", "imdb_url"],
    "segments": [
        "video_id",
        "segment_id",
        "movie_start_time",
        "movie_end_time",
        "recap_start_time",
        "recap_end_time",
        "fact_ids",
    ],
    "questions": [
        "video_id",
        "segment_id",
        "question_id",
        "question",
        "answer",
        "verbose_question",
        "vague_answer",
        "aligned_fact_ids",
    ],
    "facts": ["fact_id", "video_id", "segment_id", "fact"],
}


def _frames(pieces: list[tuple[str, float]]) -> list[np.ndarray]:
    frames = []
    for name, seconds in pieces:
        times = tuple(k / FPS for k in range(round(seconds * FPS)))
        decoded = sample_frames(MEDIA / name, Timestamps(times), resize=Resize(short_side=SIZE[1]))
        frames += [np.asarray(Image.fromarray(f.image).resize(SIZE, Image.BILINEAR)) for f in decoded]
    return frames


def write_video(path: Path, pieces: list[tuple[str, float]]) -> Path:
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("libx264", rate=FPS)
        stream.width, stream.height, stream.pix_fmt = *SIZE, "yuv420p"
        stream.options = {"crf": "23", "preset": "veryfast"}
        for image in _frames(pieces):
            for packet in stream.encode(
                av.VideoFrame.from_ndarray(np.ascontiguousarray(image), format="rgb24")
            ):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return path


class Thumbnails:
    """A deterministic image embedder: a 12x8 colour thumbnail minus its mean grey."""

    def embed_images(self, images):
        rows = []
        for image in images:
            thumb = np.asarray(Image.fromarray(np.asarray(image)).resize((12, 8), Image.BOX), np.float32)
            rows.append((thumb - thumb.mean()).ravel())
        vectors = np.stack(rows)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-6)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """The manifest's folder: the fixture SRT/VTT files, the synthetic recap and movie, and the
    sample world.mp4 with s1.srt (ghost.mp4 is missing on purpose)."""
    folder = tmp_path_factory.mktemp("inputs")
    for path in BUILD.iterdir():
        shutil.copy(path, folder / path.name)
    shutil.copy(MEDIA / "world.mp4", folder / "world.mp4")
    shutil.copy(MEDIA / "s1.srt", folder / "s1.srt")
    write_video(folder / "street_recap.mp4", RECAP)
    write_video(folder / "street_movie.mp4", MOVIE)
    return folder


# What the scripted writer replies, by segment (`video_id.segment_id`). The comments say which
# fact or pair a stage drops, and why.
FACTS = {
    "streetRecap01.0": [
        "Marco cycles through the old town at dawn.",
        "Marco is late for his first day at the bakery.",
        "He hurries to the bakery.",  # rule pronoun
    ],
    "streetRecap01.1": [
        "Marco chains his bike next to the gate.",
        "A giant rabbit wakes up in the forest.",
        "Marco chains his bike next to the gate.",  # duplicate fact
        "The rabbit yawns. The rabbit stretches.",  # rule sentences
    ],
    "streetRecap01.2": [
        "The traffic light at the crossing turns from red to green.",
        "Marco waits at the crossing for the light.",
        "Marco, who is tired, sees the van which blocks the road.",  # rule clauses
    ],
    "streetRecap01.3": [
        "Students rush across the campus to the morning lecture.",
        "Lena is the sister of Marco.",
        "Lena waves at Marco from the campus lawn.",
    ],
    "worldRecap02.0": [
        "A voice jokes that a tomato turned red because it saw the salad dressing.",
        "The letters A to F appear one after another.",
        "A voice says that in Africa a minute passes every sixty seconds.",
    ],
}
PAIRS = {
    "streetRecap01.0": [
        (
            "Why is Marco cycling through the old town at dawn?",
            "Marco is late for his first day at the bakery.",
            [1, 2],
        ),
        ("Where does Marco cycle at dawn", "Through the old town.", [1]),  # not a question
    ],
    "streetRecap01.1": [
        ("What does Marco do with his bike at the gate?", "Marco chains his bike next to the gate.", [1]),
        ("What wakes up in the forest?", "A giant rabbit wakes up in the forest.", [2]),
        ("What does Marco do with his bike at the gate?", "He chains it.", [1]),  # duplicate question
    ],
    "streetRecap01.2": [
        ("What does Marco wait for at the crossing?", "Marco waits for the light to turn green.", [1, 2]),
        ("Which colour is the van?", "Red.", [7]),  # unknown facts
    ],
    "streetRecap01.3": [
        ("Who waves at Marco from the campus lawn?", "Lena, the sister of Marco, waves at him.", [2, 3]),
        ("Where do the students rush to?", "To the morning lecture.", [1]),
        ("How is Lena related to Marco?", "Lena is the sister of Marco.", [2]),
        ("What do the students do on the campus?", "They rush to the lecture.", [1]),  # over the limit
    ],
    "worldRecap02.0": [
        (
            "What joke does the voice make about the tomato?",
            "It turned red because it saw the salad dressing.",
            [1],
        ),
        ("What appears one after another?", "The letters A to F.", [2]),
        ("What does the voice say passes every sixty seconds in Africa?", "A minute passes.", [3]),
    ],
}
SIMPLIFY_DROPS = {  # segment -> {number in the simplify prompt: how its reply goes wrong}
    "streetRecap01.1": {2: "same vague answer"},
    "streetRecap01.3": {3: "left out"},
    "worldRecap02.0": {2: "no question mark"},
}
LABELS = {  # segment -> (category, modality) per number in the classify prompt; None: left out
    "streetRecap01.0": [("NPA", "multimodal")],
    "streetRecap01.1": [("crd", "Scene-based")],
    "streetRecap01.2": [("Temporal reasoning", "scene")],
    "streetRecap01.3": [("CRD", "dialogue-based"), ("GENRE", "dialogue")],  # unknown category
    "worldRecap02.0": [("TH", "Dialogue"), None],  # not classified
    # the fixture release (`label movierecapsqa`)
    "cmpRecap001.1": [("CRD", "dialogue"), ("NPA", "dialogue")],
    "cmpRecap001.2": [("STA", "scene"), ("CRD", "telepathy")],  # unknown modality
    "cmpRecap001.5": [("NPA", "multimodal")],
    "nightOrbit02.0": [("TH", "dialogue"), ("STA", "scene")],
    "nightOrbit02.1": [("STA", "scene")],
}
SIMPLIFIED = re.compile(r"^(\d+)\. question: (.+)\n\s+answer: (.+)$", re.MULTILINE)


class ScriptedModel:
    """Test double for the builder's models: replies are a function of the request id
    (`step:item`) and of the prompt. Every (request id, reply) and prompt is recorded, so that a
    build can be replayed through the command line and its prompts checked."""

    def __init__(self, name: str, broken: frozenset[str] = frozenset()) -> None:
        self.name, self.broken = name, broken
        self.recorded: dict[str, str] = {}
        self.prompts: dict[str, str] = {}
        self.images: dict[str, int] = {}
        self.calls: Counter[str] = Counter()

    def __str__(self) -> str:
        return self.name

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        self.calls[sample_id] += 1
        parts = [p for m in messages for p in m.parts]
        text = "\n".join(p.text for p in parts if hasattr(p, "text"))
        self.prompts.setdefault(sample_id, text)
        self.images[sample_id] = sum(hasattr(p, "image") for p in parts)
        reply = "this is not JSON" if sample_id in self.broken else json.dumps(self.reply(sample_id, text))
        self.recorded[sample_id] = reply
        return Completion(reply, "scripted")

    async def aclose(self) -> None:
        pass

    def reply(self, sample_id: str, text: str):
        step, item = sample_id.split(":", 1)
        if step == "facts":
            return {"facts": FACTS[item]}
        if step == "qa":
            return {"pairs": [{"question": q, "answer": a, "facts": f} for q, a, f in PAIRS[item]]}
        if step == "simplify":
            found = []
            for number, question, answer in SIMPLIFIED.findall(text):
                wrong = SIMPLIFY_DROPS.get(item, {}).get(int(number))
                if wrong == "left out":
                    continue
                simple = question.replace("Marco", "the young man").replace("Lena", "a relative")
                found.append(
                    {
                        "number": int(number),
                        "question": simple.rstrip("?") if wrong == "no question mark" else simple,
                        "answer": answer,
                        "vague_answer": answer if wrong == "same vague answer" else "Something in that part.",
                    }
                )
            return {"questions": found}
        if step == "describe":
            return {"description": f"scripted view of {item}"}
        if step == "classify":
            return {
                "labels": [
                    {"number": number, "category": label[0], "modality": label[1]}
                    for number, label in enumerate(LABELS[item], start=1)
                    if label is not None
                ]
            }
        raise AssertionError(f"unscripted request {sample_id}")


def drops(folder: Path, name: str = "build") -> dict[str, str]:
    return {
        d["item"]: f"{d['stage']} | {d['reason']}"
        for d in map(json.loads, (folder / name / "drops.jsonl").read_text().splitlines())
    }


def samples_of(folder: Path) -> dict[str, dict]:
    return {s["id"]: s for s in map(json.loads, (folder / "samples.jsonl").read_text().splitlines())}


@pytest.fixture(scope="module")
def built(inputs, tmp_path_factory):
    out = tmp_path_factory.mktemp("built") / "bench"
    llm, vlm = ScriptedModel("writer"), ScriptedModel("viewer")
    recaps = read_manifest(inputs / "manifest.csv")
    outcome = build_movierecapsqa(recaps, out, llm=llm, vlm=vlm, embedder=Thumbnails(), config=CONFIG)
    return outcome, llm, vlm


def test_scenes_join_into_segments_of_at_least_the_minimum():
    scenes = [(0.0, 2.0), (2.0, 3.0), (3.0, 7.0), (7.0, 40.0), (40.0, 41.0)]
    # 0-7 reaches 5 s; 7-40 is cut into three 11 s parts; the short last scene joins the part before
    assert group_scenes(scenes, 5, 16) == [(0.0, 7.0), (7.0, 18.0), (18.0, 29.0), (29.0, 41.0)]
    assert group_scenes([(0.0, 3.0)], 5, 16) == [(0.0, 3.0)]  # a recap shorter than one segment
    assert group_scenes([(0.0, 60.0), (60.0, 130.0)], 60, 150) == [(0.0, 60.0), (60.0, 130.0)]


def test_a_segment_takes_the_movie_span_covering_most_of_it():
    spans = [(0.0, 4.0, 100.0, 104.0), (4.0, 6.0, 300.0, 304.0), (6.0, 10.0, 106.0, 110.0)]
    # 0-4 and 6-10 map to 100-110 (8 s of recap); the moved 4-6 (2 s) loses
    assert movie_window(spans, 0.0, 10.0, join_gap_s=5.0, min_coverage=0.3) == (100.0, 110.0)
    # a part of a match counts at the match's rate (2 movie seconds per recap second here)
    assert movie_window([(0.0, 10.0, 50.0, 70.0)], 2.0, 5.0, join_gap_s=5.0, min_coverage=0.3) == (54.0, 60.0)
    assert movie_window(spans, 20.0, 30.0, join_gap_s=5.0, min_coverage=0.3).startswith("not aligned: no")
    thin = movie_window(spans, 5.0, 30.0, join_gap_s=5.0, min_coverage=0.3)
    assert thin == "not aligned: matches cover 16% of the segment (need 30%)"


@pytest.mark.parametrize(
    ("fact", "problem"),
    [
        ("Dr. Chilton greets Clarice at the hospital in Baltimore.", None),
        ("J. Smith meets Ana at the U.S. embassy, which is closed.", None),
        ('Theo asks "Why?" and leaves the lab.', None),
        ("Theo left his wallet at the lab. Dana pays.", "rule sentences: 2 sentences"),
        ("She opens the door of the lab.", "rule pronoun: opens with 'She'"),
        ("Marco, who is tired, sees the van which blocks the road.", "rule clauses: 2 embedded clauses"),
    ],
)
def test_fact_rules(fact, problem):
    found = fact_problem(fact)
    assert found == problem if problem is None else found.startswith(problem)


def test_every_stage_runs_and_logs_its_drops(built):
    outcome, llm, vlm = built
    counts = {s.name: (s.before, s.after) for s in outcome.stages}
    assert counts == {
        "1 segments": (3, 5),  # 3 recaps: one missing, 7 segments, 2 without transcript
        "2 alignment": (4, 3),  # the 4 street segments; the crossing is not in the movie
        "3 facts": (5, 12),
        "4 questions": (5, 10),
        "5 simplify": (10, 7),
        "6 classification": (7, 5),
    }
    expected = {
        "ghostRecap03": "1 segments | missing recap video: ",
        "streetRecap01.4": "1 segments | no transcript: no cue with text in 36.2-48.2 s",
        "worldRecap02.1": "1 segments | no transcript: ",
        "streetRecap01.2": "2 alignment | not aligned: no confident match in the segment (kept without",
        "streetRecap01.0:fact3": "3 facts | rule pronoun: opens with 'He'",
        "streetRecap01.1:fact3": "3 facts | duplicate fact: repeats fact 1",
        "streetRecap01.1:fact4": "3 facts | rule sentences: 2 sentences",
        "streetRecap01.2:fact3": "3 facts | rule clauses: 2 embedded clauses (who, which)",
        "streetRecap01.0:pair2": "4 questions | not a question: no question mark",
        "streetRecap01.1:pair3": "4 questions | duplicate question: repeats pair 1",
        "streetRecap01.2:pair2": "4 questions | unknown facts: 7 (the segment has 2)",
        "streetRecap01.3:pair4": "4 questions | over the limit: 3 pairs asked for",
        "streetRecap01.1.1": "5 simplify | vague answer: the same as the answer",
        "streetRecap01.3.2": "5 simplify | not simplified: number 3 is missing from the reply",
        "worldRecap02.0.1": "5 simplify | not a question: no question mark",
        "streetRecap01.3.1": "6 classification | unknown category: 'GENRE'",
        "worldRecap02.0.2": "6 classification | not classified: number 2 is missing from the reply",
    }
    dropped = drops(outcome.folder)
    for item, start in expected.items():
        assert dropped.get(item, "").startswith(start), (item, dropped.get(item))
    assert len(dropped) == len(expected)
    stages = {s.name: s for s in outcome.stages}
    assert stages["1 segments"].dropped == {"missing recap video": 1, "no transcript": 2}
    assert stages["3 facts"].dropped == {
        "rule pronoun": 1,
        "duplicate fact": 1,
        "rule sentences": 1,
        "rule clauses": 1,
    }
    report = (outcome.folder / "build/report.md").read_text()
    assert "| 2 alignment | segments -> aligned segments | 4 | 3 | not aligned: 1 |" in report
    assert "- 2 recaps, 5 segments, 12 facts, 5 questions" in report
    assert "questions by category: CRD 2, NPA 1, TEMP 1, TH 1" in report
    assert "questions by modality: dialogue 2, multimodal 1, scene 2" in report
    # "Africa" stays in a simplified question: listed, not dropped
    assert "1 simplified question(s) keep a name of the verbose one: worldRecap02.0.2" in report
    assert (outcome.folder / "build/alignment/streetRecap01/alignment.png").is_file()
    assert json.loads((outcome.folder / "build/segments/streetRecap01.json").read_text())["scenes"]
    # every step was asked once: 5 x facts, qa, simplify, describe and classify
    assert sum(llm.calls.values()) == 20 and set(llm.calls.values()) == {1}
    assert sum(vlm.calls.values()) == 5 and set(vlm.images.values()) == {1}


def test_prompts_carry_the_context_of_each_step(built):
    _, llm, _ = built
    prompts = llm.prompts
    # the previous segment's kept facts resolve references; the first segment has none
    assert "Marco is late for his first day at the bakery." in prompts["facts:streetRecap01.1"]
    assert "He hurries" not in prompts["facts:streetRecap01.1"]
    assert "previous part" not in prompts["facts:streetRecap01.0"]
    assert "Marco chains his bike next to the gate." in prompts["facts:streetRecap01.2"]
    assert "Meanwhile, in the forest, a giant rabbit wakes up." in prompts["facts:streetRecap01.1"]
    assert "Dawn Ride (2011)" in prompts["qa:streetRecap01.0"]
    assert "1. Marco cycles through the old town at dawn." in prompts["qa:streetRecap01.0"]
    # an aligned segment is labelled with the movie's dialogue in its window (20-25.4 s)
    classify = prompts["classify:streetRecap01.0"]
    assert "movie subtitles of the aligned movie segment" in classify
    assert "The ovens won't wait for you." in classify and "Marco! Over here!" not in classify
    assert "scripted view of streetRecap01.0" in classify
    assert "Why is the young man cycling through the old town at dawn?" in classify
    # a segment without a movie is labelled with the recap's narration
    assert "the recap's narration" in prompts["classify:worldRecap02.0"]
    assert "the recap's narration" in prompts["classify:streetRecap01.2"]  # not aligned


def test_tables_have_the_release_shape_and_round_trip_through_import(built, tmp_path):
    outcome, _, _ = built
    folder = outcome.folder / "tables"
    for name in TABLES:
        records = json.loads((folder / f"{name}.json").read_text())
        assert records and all(list(record) == RELEASE_FIELDS[name] for record in records), name
    tables = read_tables(folder)
    assert tables.problems == []
    assert [r.video_id for r in tables.recaps] == ["streetRecap01", "worldRecap02"]
    assert tables.recaps[0].imdb_url == "https://www.imdb.com/title/tt0000111/"
    segments = {(s.video_id, s.segment_id): s for s in tables.segments}
    assert sorted(segments) == [("streetRecap01", n) for n in range(4)] + [("worldRecap02", 0)]
    first, crossing = segments["streetRecap01", 0], segments["streetRecap01", 2]
    assert (first.recap_start_time, first.recap_end_time) == (0.0, 5.5)
    assert first.movie_start_time == pytest.approx(20.0, abs=0.5)
    assert first.movie_end_time == pytest.approx(25.5, abs=0.5)
    assert segments["streetRecap01", 3].movie_start_time == pytest.approx(0.0, abs=0.5)
    assert crossing.movie_start_time is None and crossing.movie_end_time is None
    assert segments["worldRecap02", 0].movie_start_time is None
    facts = {f.fact_id: f for f in tables.facts}
    assert sorted(facts) == list(range(1, 13))
    assert first.fact_ids == [1, 2] and facts[2].fact == "Marco is late for his first day at the bakery."
    questions = {q.key: q for q in tables.questions}
    assert sorted(questions) == [
        "streetRecap01.0.0",
        "streetRecap01.1.0",
        "streetRecap01.2.0",
        "streetRecap01.3.0",
        "worldRecap02.0.0",
    ]
    asked = questions["streetRecap01.0.0"]
    assert asked.question == "Why is the young man cycling through the old town at dawn?"
    assert asked.verbose_question == "Why is Marco cycling through the old town at dawn?"
    assert asked.answer == "Marco is late for his first day at the bakery."
    assert asked.vague_answer == "Something in that part."
    assert asked.aligned_fact_ids == [1, 2]
    for question in tables.questions:  # every aligned fact belongs to the question's segment
        segment = segments[question.video_id, question.segment_id]
        assert set(question.aligned_fact_ids) <= set(segment.fact_ids)
    labels = read_labels(folder / "labels.json")
    assert sorted(labels) == sorted(questions)
    assert (labels["streetRecap01.1.0"].category, labels["streetRecap01.1.0"].modality) == ("CRD", "scene")
    # write(read(tables)) gives the same files
    write_tables(tmp_path / "again", tables)
    for name in TABLES:
        assert (tmp_path / "again" / f"{name}.json").read_text() == (folder / f"{name}.json").read_text()
    # a plain import of the tables gives the same samples, less the labels
    media = outcome.folder / "build/media"
    import_movierecapsqa(
        folder, media / "recaps.csv", media / "movies.csv", media / "subtitles.csv", out=tmp_path / "imported"
    )
    imported, built_samples = samples_of(tmp_path / "imported"), samples_of(outcome.folder)
    assert list(imported) == list(built_samples)
    for key, sample in built_samples.items():
        meta = dict(sample["metadata"])
        assert (meta.pop("category"), meta.pop("modality")) == (labels[key].category, labels[key].modality)
        assert {**sample, "metadata": meta} == imported[key]
        assert sample["question"] == questions[key].question and sample["answer"] == questions[key].answer
        assert sample["facts"] == [facts[i].fact for i in questions[key].aligned_fact_ids]


def test_benchmark_folder_validates_and_links_each_question(built):
    outcome, _, _ = built
    result = CliRunner().invoke(validate, [str(outcome.folder)])
    assert result.exit_code == 0, result.output
    assert "mr-build-test built: valid (5 samples" in result.output
    samples = samples_of(outcome.folder)
    aligned = samples["streetRecap01.0.0"]
    meta = aligned["metadata"]
    assert (meta["category"], meta["modality"]) == ("NPA", "multimodal")
    assert meta["video_roles"] == ["recap_segment", "movie_segment", "recap", "movie"]
    assert meta["movie_name"] == "Dawn Ride (2011)" and meta["lacks"] == []
    assert meta["movie_subtitles"].startswith("media/subtitles/") and meta["recap_window"] == [0.0, 5.5]
    assert aligned["videos"][0] == {"path": "media/recaps/streetRecap01.mp4", "start_s": 0.0, "end_s": 5.5}
    assert (outcome.folder / "media/recaps/streetRecap01.mp4").is_file()
    unaligned = samples["streetRecap01.2.0"]["metadata"]
    assert unaligned["movie_window"] is None and unaligned["video_roles"] == [
        "recap_segment",
        "recap",
        "movie",
    ]
    world = samples["worldRecap02.0.0"]["metadata"]
    assert world["video_roles"] == ["recap_segment", "recap"] and (world["category"], world["modality"]) == (
        "TH",
        "dialogue",
    )
    card = (outcome.folder / "benchmark.yaml").read_text()
    assert "name: mr-build-test" in card and "category:" in card and "modality:" in card


def test_rerun_makes_no_model_calls(built, inputs):
    outcome, _, _ = built
    before = {
        name: (outcome.folder / name).read_text() for name in ("samples.jsonl", "tables/questions.json")
    }
    llm, vlm = ScriptedModel("writer"), ScriptedModel("viewer")
    recaps = read_manifest(inputs / "manifest.csv")
    again = build_movierecapsqa(
        recaps, outcome.folder, llm=llm, vlm=vlm, embedder=Thumbnails(), config=CONFIG
    )
    assert not llm.calls and not vlm.calls and again.reused_calls == 25
    for name, text in before.items():
        assert (outcome.folder / name).read_text() == text
    assert [s.as_dict() for s in again.stages] == [s.as_dict() for s in outcome.stages]
    assert any("shots and scenes reused" in note for note in again.notes)
    assert any("alignment reused" in note for note in again.notes)


def test_a_failed_step_drops_its_segment_and_is_asked_again_on_rerun(inputs, tmp_path):
    world = [recap for recap in read_manifest(inputs / "manifest.csv") if recap.video_id == "worldRecap02"]
    broken = ScriptedModel("writer", broken=frozenset({"facts:worldRecap02.0"}))
    with pytest.raises(InputError, match=r"nothing was built: no question survived .*drops\.jsonl"):
        build_movierecapsqa(world, tmp_path / "out", llm=broken, config=CONFIG)
    assert broken.calls["facts:worldRecap02.0"] == 3  # the request and two repair turns
    reason = drops(tmp_path / "out")["worldRecap02.0"]
    assert reason.startswith("3 facts | facts step failed: model step failed: invalid_output")
    fixed = ScriptedModel("writer")
    outcome = build_movierecapsqa(world, tmp_path / "out", llm=fixed, config=CONFIG)
    assert fixed.calls["facts:worldRecap02.0"] == 1 and outcome.questions == 1
    # without a VLM the labels read the facts in place of a scene description
    assert "facts about the scene stand in" in fixed.prompts["classify:worldRecap02.0"]
    assert "A voice jokes that a tomato turned red" in fixed.prompts["classify:worldRecap02.0"]


def replay_files(folder: Path, **models: ScriptedModel) -> dict[str, str]:
    """Each scripted model's recorded replies as a replay file; returns name -> model spec."""
    specs = {}
    for name, model in models.items():
        path = folder / f"{name}.jsonl"
        path.write_text(
            "".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in model.recorded.items())
        )
        specs[name] = f"replay:{path}"
    return specs


def test_command_line_builds_from_a_manifest_or_one_recap(inputs, tmp_path):
    manifest = tmp_path / "manifest.jsonl"
    manifest.write_text(
        json.dumps(
            {
                "video_id": "worldRecap02",
                "movie_name": "Night Orbit (2019)",
                "recap": str(inputs / "world.mp4"),
                "recap_subtitles": str(inputs / "s1.srt"),
            }
        )
        + "\n"
    )
    llm, vlm = ScriptedModel("writer"), ScriptedModel("viewer")
    library = build_movierecapsqa(
        read_manifest(manifest), tmp_path / "library", llm=llm, vlm=vlm, config=CONFIG
    )
    specs = replay_files(tmp_path, writer=llm, viewer=vlm)
    common = [
        "--llm",
        specs["writer"],
        "--vlm",
        specs["viewer"],
        "--min-segment-s",
        "5",
        "--max-segment-s",
        "16",
    ]
    common += ["--questions-per-segment", "3", "--name", "mr-build-test"]
    runner = CliRunner()
    result = runner.invoke(
        build_command, ["--manifest", str(manifest), *common, "--out", str(tmp_path / "cli")]
    )
    assert result.exit_code == 0, result.output
    assert "1 questions, 3 facts, 1 segments of 1 recaps" in result.output
    assert "6 classification" in result.output  # the stage lines (stderr is mixed in)
    assert (tmp_path / "cli/samples.jsonl").read_text() == (tmp_path / "library/samples.jsonl").read_text()
    assert library.questions == 1
    one = [
        "--recap",
        str(inputs / "world.mp4"),
        "--transcript",
        str(inputs / "s1.srt"),
        "--video-id",
        "worldRecap02",
        "--movie-name",
        "Night Orbit (2019)",
    ]
    result = runner.invoke(build_command, [*one, *common, "--out", str(tmp_path / "one")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "one/tables/questions.json").read_text() == (
        tmp_path / "cli/tables/questions.json"
    ).read_text()
    again = runner.invoke(build_command, [*one, *common, "--out", str(tmp_path / "one")])
    assert again.exit_code == 0 and "(5 model steps reused)" in again.output
    # usage errors
    both = runner.invoke(
        build_command, ["--manifest", str(manifest), *one, *common, "--out", str(tmp_path / "x")]
    )
    assert both.exit_code == 2 and "go without --manifest" in both.output
    neither = runner.invoke(build_command, [*common, "--out", str(tmp_path / "x")])
    assert neither.exit_code == 2 and "give --manifest" in neither.output
    movie = [*one, "--movie", str(inputs / "street_movie.mp4")]
    no_embedder = runner.invoke(build_command, [*movie, *common, "--out", str(tmp_path / "x")])
    assert no_embedder.exit_code == 1 and "needs an image embedder" in no_embedder.output


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (
            "video_id,movie_name,recap,recap_subtitles,genre\nv1,M,a.mp4,a.srt,drama\n",
            ":1: unknown columns genre",
        ),
        (
            "video_id,movie_name,recap,recap_subtitles\nv1,M,a.mp4,a.srt\nv1,N,b.mp4,b.srt\n",
            ":3: video_id 'v1' repeats",
        ),
        (
            "video_id,movie_name,recap,recap_subtitles,movie_subtitles\nv1,M,a.mp4,a.srt,m.srt\n",
            ":2: movie_subtitles needs",
        ),
        (
            "video_id,movie_name,recap,recap_subtitles\nv 1,M,a.mp4,a.srt\n",
            ":2: video_id: String should match",
        ),
        ("video_id,movie_name,recap,recap_subtitles\nv1,M,a.mp4,\n", ":2: recap_subtitles: "),
    ],
)
def test_a_bad_manifest_names_file_and_line(tmp_path, line, problem):
    path = tmp_path / "manifest.csv"
    path.write_text(line)
    with pytest.raises(InputError, match=re.escape(problem)):
        read_manifest(path)


def import_release(out: Path) -> Path:
    media = FIXTURES / "media"
    import_movierecapsqa(
        FIXTURES / "release", media / "recaps.csv", media / "movies.csv", media / "subtitles.csv", out=out
    )
    return out


def test_labels_imported_release_questions_in_place(tmp_path):
    bench = import_release(tmp_path / "bench")
    before = samples_of(bench)
    llm, vlm = ScriptedModel("labeller"), ScriptedModel("viewer")
    outcome = label_benchmark(bench, llm=llm, vlm=vlm)
    assert (outcome.labelled, outcome.kept) == (7, 0)
    assert outcome.unlabelled == {"cmpRecap001.2.1": "unknown modality: 'telepathy'"}
    assert outcome.text_only == 1  # segment 5 of cmpRecap001 is not in the tables: no window, no frames
    assert sorted(vlm.calls) == [
        "describe:cmpRecap001.1",
        "describe:cmpRecap001.2",
        "describe:nightOrbit02.0",
        "describe:nightOrbit02.1",
    ]
    # the dialogue is the movie subtitles of the aligned movie segment (10-30 s of the movie)
    prompt = llm.prompts["classify:cmpRecap001.1"]
    assert "Only if you" in prompt and "movie subtitles of the aligned movie segment" in prompt
    assert "Dana greets Theo" not in prompt  # a description was given: the facts are not needed
    assert (
        "(no dialogue is available for this scene)" in llm.prompts["classify:nightOrbit02.1"]
    )  # not aligned
    samples = samples_of(bench)
    assert samples["cmpRecap001.1.0"]["metadata"]["category"] == "CRD"
    assert samples["nightOrbit02.1.0"]["metadata"]["modality"] == "scene"
    assert "category" not in samples["cmpRecap001.2.1"]["metadata"]
    for key, sample in samples.items():  # nothing else changed
        meta = {k: v for k, v in sample["metadata"].items() if k not in ("category", "modality")}
        assert {**sample, "metadata": meta} == before[key]
    assert CliRunner().invoke(validate, [str(bench)]).exit_code == 0
    written = read_labels(bench / "labels/labels.json")
    assert len(written) == 7 and written["nightOrbit02.0.1"].category == "STA"
    assert drops(bench, "labels") == {"cmpRecap001.2.1": "classify | unknown modality: 'telepathy'"}
    # a rerun asks only about the question still without labels
    again_llm = ScriptedModel("labeller")
    again = label_benchmark(bench, llm=again_llm)
    assert (again.kept, again.labelled, again.unlabelled) == (7, 1, {})
    assert list(again_llm.calls) == ["classify:cmpRecap001.2"]  # one question, text only: a new request
    # labelling all again with the first run's models asks nothing: every step is journaled
    llm, vlm = ScriptedModel("labeller"), ScriptedModel("viewer")
    third = label_benchmark(bench, llm=llm, vlm=vlm, relabel=True)
    assert not llm.calls and not vlm.calls and third.reused_calls == 9
    assert third.unlabelled == {"cmpRecap001.2.1": "unknown modality: 'telepathy'"}
    assert read_labels(bench / "labels/labels.json")["cmpRecap001.2.1"].category == "STA"  # kept from before
    assert samples_of(bench)["cmpRecap001.2.1"]["metadata"]["category"] == "STA"


def test_label_command_asks_a_model_or_applies_a_labels_file(tmp_path):
    llm = ScriptedModel("labeller")
    label_benchmark(import_release(tmp_path / "library"), llm=llm)
    specs = replay_files(tmp_path, labeller=llm)
    runner = CliRunner()
    bench = import_release(tmp_path / "bench")
    result = runner.invoke(label_command, [str(bench), "--llm", specs["labeller"]])
    assert result.exit_code == 1, result.output  # a question without labels is a failure, said so
    assert "labelled 7 questions (0 kept their labels, 1 unlabelled" in result.output
    assert f"1 question(s) got no labels; the reasons are above and in {bench / 'labels/drops.jsonl'}" in (
        " ".join(result.output.split())
    )
    assert "unlabelled cmpRecap001.2.1: unknown modality" in result.output
    assert (bench / "samples.jsonl").read_text() == (tmp_path / "library/samples.jsonl").read_text()
    # a labels file (a build's tables/labels.json has this form) needs no model
    other = import_release(tmp_path / "other")
    labels = tmp_path / "labels.json"
    labels.write_text(
        json.dumps(
            {
                "cmpRecap001.1.0": {"category": "TEMP", "modality": "Scene-based"},
                "x.0.0": {"category": "TH", "modality": "scene"},
            }
        )
    )
    result = runner.invoke(label_command, [str(other), "--labels", str(labels)])
    assert (
        result.exit_code == 0
        and "labelled 1 samples" in result.output
        and "1 label(s) match no sample: x.0.0" in result.output
    )
    assert samples_of(other)["cmpRecap001.1.0"]["metadata"]["modality"] == "scene"
    labels.write_text(json.dumps({"cmpRecap001.1.0": {"category": "DRAMA", "modality": "scene"}}))
    bad = runner.invoke(label_command, [str(other), "--labels", str(labels)])
    assert bad.exit_code == 1 and "category must be one of TEMP, CRD, NPA, STA, TH" in bad.output
    usage = runner.invoke(label_command, [str(other)])
    assert usage.exit_code == 2 and "give --llm" in usage.output
