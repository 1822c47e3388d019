"""The four settings and the two input ablations, end to end through `run_eval` on the imported
fixture, with a scripted chat model (a test double at the model boundary that answers each
request from what it was sent and records it): the right video and window, the dialogue cut
to the movie segment and timed from its start, and nothing else."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vqakit.systems.movierecapsqa  # noqa: F401  (registers the mr_ prompts)
from vqakit.benchmarks import load_benchmark
from vqakit.methods import MethodSetupError, get_method
from vqakit.models import Completion, Frames, Text
from vqakit.runner import EvalConfig, run_eval
from vqakit.systems.movierecapsqa.importer import import_movierecapsqa
from vqakit.systems.movierecapsqa.settings import RecapsOptions, check_benchmark, describe

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures/movierecapsqa"
MEDIA = FIXTURE / "media"

# the videos, told apart by their frames under a 448-pixel short-side cap (smaller frames are not
# enlarged): (height, width)
BIKES, WORLD, PEDESTRIANS = (272, 640), (270, 480), (448, 597)
WINDOWS = {  # (setting, sample prefix) -> (video, start, end)
    ("recap-segment", "cmpRecap001.1"): (BIKES, 0.0, 4.5),
    ("recap-segment", "cmpRecap001.2"): (BIKES, 4.5, 10.0),
    ("recap-segment", "nightOrbit02.0"): (WORLD, 0.0, 15.0),
    ("recap-segment", "nightOrbit02.1"): (WORLD, 15.0, 30.033),
    ("movie-segment", "cmpRecap001.1"): (PEDESTRIANS, 10.0, 30.0),
    ("movie-segment", "cmpRecap001.2"): (PEDESTRIANS, 40.0, 70.5),
    ("full-recap", "cmpRecap001"): (BIKES, 0.0, 10.0),
    ("full-recap", "nightOrbit02"): (WORLD, 0.0, 30.033),
    ("full-movie", "cmpRecap001"): (PEDESTRIANS, 0.0, 79.5),
}
DIALOGUE = {  # the movie subtitles of each aligned movie segment, timed from its start
    "cmpRecap001.1": [  # movie 10-30 s: the cue at 3 s is before it, the one at 27.5-32 s is clipped
        "[00:02] Only if you’re buying. I left my wallet at the lab.",
        "[00:08] Again? That’s the third time this week.",
        "[00:17] Then I’ll owe you two coffees.",
    ],
    "cmpRecap001.2": [  # movie 40-70.5 s
        "[00:04] Let’s meet by the lamp post after the lecture.",
        "[00:12] The one next to the tripod on the lawn?",
        "[00:25] That’s the one. Don’t be late.",
    ],
    "nightOrbit02.0": [  # movie 2.25-9 s of the shipped s1.srt
        "[00:00] E",
        "[00:00] F",
        "[00:00] This is multiple line test. Why did the tomato turn red? Because it saw the salad dressing. "
        "In Africa, every 60 seconds a minute passes",
    ],
}
ALL_DIALOGUE = [line.split("] ", 1)[1] for lines in DIALOGUE.values() for line in lines]
NO_SEGMENT, UNALIGNED = "cmpRecap001.5.0", "nightOrbit02.1.0"
NO_MOVIE = {"nightOrbit02.0.0", "nightOrbit02.0.1", UNALIGNED}


def expected_error(sample_id: str, setting: str, inputs: str) -> str | None:
    """What each sample lacks for a run, as the fixture was written (see test_import)."""
    if inputs != "frames" and sample_id in (NO_SEGMENT, UNALIGNED):
        return "not_applicable"  # no aligned movie segment, so no movie dialogue
    if inputs == "dialogue":
        return None
    if setting == "recap-segment" and sample_id == NO_SEGMENT:
        return "not_applicable"
    if setting == "movie-segment" and sample_id in (NO_SEGMENT, UNALIGNED):
        return "not_applicable"
    if setting in ("movie-segment", "full-movie") and sample_id in NO_MOVIE:
        return "missing_media"
    return None


class ScriptedModel:
    """Test double for a chat model: records each request (text, frame labels, image sizes) and
    answers from it, naming what it was given."""

    def __init__(self) -> None:
        self.requests: dict[str, dict] = {}

    async def complete(self, messages, *, sample_id=None, **params) -> Completion:
        parts = [part for message in messages for part in message.parts]
        frames = [part for part in parts if isinstance(part, Frames)]
        text = "\n".join(part.text for part in parts if isinstance(part, Text))
        labels = [t for part in frames for t in part.times_s]
        shapes = {image.shape[:2] for part in frames for image in part.images}
        self.requests[sample_id] = {"text": text, "labels": labels, "shapes": shapes, "parts": len(parts)}
        lines = sum(1 for line in text.splitlines() if line.startswith("["))
        return Completion(f"Scripted answer from {len(labels)} frames and {lines} lines.", "scripted")

    async def aclose(self) -> None:
        pass

    def __str__(self) -> str:
        return "scripted"


@pytest.fixture(scope="module")
def bench_folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("movierecapsqa") / "bench"
    import_movierecapsqa(
        FIXTURE / "release", MEDIA / "recaps.csv", MEDIA / "movies.csv", MEDIA / "subtitles.csv", out=folder
    )
    return folder


def run(bench_folder: Path, out: Path, monkeypatch, **method_args) -> tuple[ScriptedModel, dict[str, dict]]:
    model = ScriptedModel()
    monkeypatch.setattr("vqakit.models.Model", lambda *args, **kwargs: model)
    replies = out.parent / "unused-replies.jsonl"
    replies.write_text("")
    config = EvalConfig(
        bench=str(bench_folder),
        method="movierecaps",
        model=f"replay:{replies}",
        frames="uniform:6",  # the protocol's spec, overridden per run as any run may
        method_args=method_args,
    )
    run_eval(config, out)
    lines = (out / "predictions.jsonl").read_text(encoding="utf-8").splitlines()
    return model, {p["sample_id"]: p for p in map(json.loads, lines)}


def window_for(setting: str, sample_id: str):
    for (name, prefix), window in WINDOWS.items():
        if name == setting and sample_id.startswith(prefix):
            return window
    raise AssertionError(f"no window expected for {sample_id} in {setting}")


@pytest.mark.parametrize("inputs", ["both", "frames", "dialogue"])
@pytest.mark.parametrize("setting", ["recap-segment", "movie-segment", "full-recap", "full-movie"])
def test_each_setting_sends_its_window_and_the_segment_dialogue(
    bench_folder, tmp_path, monkeypatch, setting, inputs
):
    model, predictions = run(bench_folder, tmp_path / "run", monkeypatch, setting=setting, inputs=inputs)
    samples = {s.id: s for s in load_benchmark(str(bench_folder)).samples}
    assert sorted(predictions) == sorted(samples)
    for sample_id, prediction in predictions.items():
        error = expected_error(sample_id, setting, inputs)
        if error is not None:
            assert prediction["error"]["type"] == error, (sample_id, prediction["error"])
            assert sample_id not in model.requests and prediction["reply"] is None
            continue
        assert prediction["error"] is None, (sample_id, prediction["error"])
        sent = model.requests[sample_id]
        text, sample = sent["text"], samples[sample_id]
        assert prediction["reply"].startswith("Scripted answer from") and prediction["prompt"] == text
        assert f"Question: {sample.question}" in text
        # nothing else: neither the reference answer, nor its vague form, nor any fact
        hidden = [
            sample.answer,
            sample.metadata.model_extra["vague_answer"],
            *sample.metadata.model_extra["segment_facts"],
        ]
        assert not [leak for leak in hidden if leak in text]
        if inputs == "dialogue":
            assert sent["labels"] == [] and sent["parts"] == 1 and prediction["frames_s"] == []
            assert "frames" not in text
        else:
            video, start, end = window_for(setting, sample_id)
            assert sent["shapes"] == {video} and len(sent["labels"]) == 6
            assert all(start - 0.1 <= t < end for t in prediction["frames_s"]), prediction["frames_s"]
            assert sent["labels"] == pytest.approx([max(0.0, t - start) for t in prediction["frames_s"]])
            [strip] = prediction["images"]  # the strip of what was sent, kept in the run folder
            assert strip.startswith(f"frames/{sample_id}") and (tmp_path / "run" / strip).is_file()
        expected_lines = [] if inputs == "frames" else DIALOGUE[sample_id.rsplit(".", 1)[0]]
        assert [line for line in text.splitlines() if line.startswith("[")] == expected_lines
        if inputs == "frames":
            assert "subtitles" not in text and not [line for line in ALL_DIALOGUE if line in text]
    manifest = json.loads((tmp_path / "run/manifest.json").read_text())
    protocol = load_benchmark(str(bench_folder)).card.protocol.model_copy(update={"frames": "uniform:6"})
    assert manifest["shown"] == describe(RecapsOptions(setting=setting, inputs=inputs), protocol)
    assert (tmp_path / "run/report.html").is_file()


def test_media_gone_after_the_import_is_missing_media(bench_folder, tmp_path, monkeypatch):
    import shutil

    copy = tmp_path / "bench"
    shutil.copytree(bench_folder, copy)
    subtitles = json.loads((copy / "samples.jsonl").read_text().splitlines()[0])["metadata"]
    (copy / subtitles["movie_subtitles"]).unlink()
    _, predictions = run(copy, tmp_path / "run", monkeypatch)
    gone = predictions["cmpRecap001.1.0"]["error"]
    assert gone["type"] == "missing_media" and "subtitle file not found" in gone["message"]
    assert predictions["nightOrbit02.0.0"]["error"] is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"setting": "trailer"},
            "setting: Input should be 'recap-segment', 'movie-segment', 'full-recap' or 'full-movie'",
        ),
        ({"inputs": "audio"}, "inputs: Input should be 'both', 'frames' or 'dialogue'"),
        ({"frames": 8}, "has no option frames"),
        ({"prompt": "no_such_prompt"}, "movierecaps prompt: unknown prompt 'no_such_prompt'"),
    ],
)
def test_options_are_checked_before_a_run(bench_folder, args, message):
    with pytest.raises(MethodSetupError, match=message):
        get_method("movierecaps").check(load_benchmark(str(bench_folder)), args)


def test_a_run_no_sample_could_answer_is_refused(tmp_path):
    import_movierecapsqa(FIXTURE / "release", MEDIA / "recaps.csv", out=tmp_path / "recaps-only")
    bench = load_benchmark(str(tmp_path / "recaps-only"))
    with pytest.raises(
        MethodSetupError, match="setting=full-movie: no sample has a full movie video; import with --movies"
    ):
        check_benchmark(bench, RecapsOptions(setting="full-movie", inputs="frames"))
    with pytest.raises(MethodSetupError, match="no sample has movie subtitles for an aligned movie segment"):
        check_benchmark(bench, RecapsOptions())
    check_benchmark(bench, RecapsOptions(inputs="frames"))  # the recap frames alone can run
    with pytest.raises(MethodSetupError, match="has no MovieRecapsQA samples"):
        check_benchmark(load_benchmark("sample"), RecapsOptions())
