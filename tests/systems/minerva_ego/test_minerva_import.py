"""`vqakit import minerva` on a release-shaped fixture, then validate and evaluate it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vqakit.benchmarks import check_benchmark, load_benchmark
from vqakit.schema import find_objects, find_times
from vqakit.systems.minerva_ego.release import FOUR_DECOYS, minerva_options
from vqakit.video import write_index_clip

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "minerva_ego_release.json"


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    videos = tmp_path_factory.mktemp("videos")
    for video_id in ("P01-20240202-110250", "P02-20240203-090000"):
        write_index_clip(videos / f"{video_id}.mp4", seconds=12, width=160, height=120, gop=25)
    out = tmp_path_factory.mktemp("bench") / "minerva"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "import",
            "minerva",
            str(FIXTURE),
            "--videos",
            str(videos),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    return out, result


def test_four_decoy_shape_puts_the_answer_at_answer_id():
    """This fixture is in the older four-decoy shape (the release's five-option shape is in
    test_release_shape.py)."""
    records = json.loads(FIXTURE.read_text())
    for record in records[:5]:
        options = minerva_options(record)
        assert options.shape == FOUR_DECOYS and options.answer == record["answer_id"]
        assert len(options.choices) == 5 and options.choices[record["answer_id"]] == record["answer"]
    counting = minerva_options(records[0]).choices
    assert counting == ["once", "twice", "three", "four times", "five times"]  # a natural sequence


def test_import_round_trip(imported):
    out, result = imported
    assert result.returncode == 0, result.stderr
    assert "wrote 4 samples" in result.stdout
    assert "missing video P03-missing-video (1 question(s): mego-0004)" in result.stderr
    assert f"skipped {FIXTURE}: record 6 (broken-0006): -: missing answer_id" in result.stderr
    benchmark, problems = check_benchmark(out)
    assert problems == [] and benchmark is not None
    samples = {s.id: s for s in load_benchmark(out).samples}
    assert set(samples) == {"mego-0001", "mego-0002", "mego-0003", "minerva-0005"}
    first = samples["mego-0001"]
    assert first.answer_text() == "three" and first.metadata.skills == ["Counting", "Temporal Reasoning"]
    assert {ref.id for ref in find_objects(first.reasoning)} >= {
        "fridge-0a1b2c3d4e5f6071",
        "knife-2c3afc468fb10cb2",
        "red pepper-1f2e3d4c5b6a7980",
    }
    assert (7.0, 8.0) in find_times(first.reasoning)
    assert (
        samples["mego-0003"].answer == 4 and samples["mego-0003"].choices[4] == "I pour the rice into the pot"
    )
    youtube = samples["minerva-0005"]
    assert youtube.videos[0].path == "media/P02-20240203-090000.mp4"
    assert youtube.metadata.category == "cooking" and youtube.metadata.model_extra["split"] == "test"
    card = load_benchmark(out).card
    assert card.protocol.frames == "uniform:64" and card.protocol.prompt == "mcq_reasoning"
    assert card.protocol.min_group_size == 50  # Minerva-Ego leaves out skills with < 50 questions


def test_imported_benchmark_evaluates(imported, tmp_path):
    out, _ = imported
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "eval",
            str(out),
            "--method",
            "random",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "MCQ accuracy" in result.stdout and "on 4 samples" in result.stdout


def test_imported_fixture_with_hints_rubric_and_recall(imported, tmp_path):
    """The done-when run: hints + rubric judge + recall on the imported fixture, all in the report.
    The card's min_group_size is lowered to 1 so that the 4-question fixture shows skill rows."""
    import shutil

    import yaml

    out, _ = imported
    bench = tmp_path / "bench"
    shutil.copytree(out, bench)
    card = yaml.safe_load((bench / "benchmark.yaml").read_text())
    card["protocol"]["min_group_size"] = 1
    (bench / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = load_benchmark(bench).samples
    answers = tmp_path / "a.jsonl"
    answers.write_text(
        "".join(
            json.dumps(
                {"sample_id": s.id, "reply": "1. At 00:02 I open the fridge and take the knife.\nAnswer: (1)"}
            )
            + "\n"
            for s in samples
        )
    )
    grades = tmp_path / "g.jsonl"
    grades.write_text(
        "".join(
            json.dumps(
                {
                    "sample_id": s.id,
                    "reply": "[Perceptual Correctness: 1]\n[Temporal "
                    "Grounding: 2]\n[Logical Reasoning: 1]\n[Completeness: 0]",
                }
            )
            + "\n"
            for s in samples
        )
    )
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "eval",
            str(bench),
            "--model",
            f"replay:{answers}",
            "--method",
            "hints",
            "--frames",
            "uniform:4",
            "--prompt",
            "mcq_numbered",
            "--rubric-judge",
            f"replay:{grades}",
            "--out",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    results = json.loads((tmp_path / "run/results.json").read_text())
    assert results["overall"]["n"] == 4 and results["rubric"]["temporal_grounding"]["mean"] == 2.0
    assert results["object_recall"]["n"] == 4
    assert {"skills", "video_length"} <= set(results["groups"])
    page = (tmp_path / "run/report.html").read_text()
    for words in (
        "MCQ accuracy",
        "rubric temporal grounding",
        "Reasoning rubric",
        "Object recall",
        "By skills",
        "By video_length",
    ):
        assert words in page


def test_video_ids_that_break_url_parsing_or_file_name_limits_fail_their_question_only(tmp_path):
    """A video id like `https://[x` (an unclosed IPv6 host to urllib) and a videos CSV path
    longer than the file system allows are problems of their question, found by the fuzz."""
    from vqakit.systems.minerva_ego.importer import import_minerva
    from vqakit.systems.minerva_ego.release import video_key

    assert video_key("https://[[[bad/clip.mp4") == "clip"
    write_index_clip(tmp_path / "store/a.mp4", seconds=1, width=64, height=48)
    record = {
        "question": "What is picked up first?",
        **{f"answer_choice_{i}": text for i, text in enumerate("abcde")},
        "answer_id": 0,
        "answer": "a",
    }
    records = [
        {**record, "key": "good", "video_id": "vidA"},
        {**record, "key": "ipv6", "video_id": "https://[[[bad"},
        {**record, "key": "long", "video_id": "x" * 300},
    ]
    (tmp_path / "release.json").write_text(json.dumps(records))
    (tmp_path / "videos.csv").write_text(
        f"video_id,path\nvidA,store/a.mp4\nhttps://[[[bad,store/a.mp4\n{'x' * 300},store/{'y' * 300}.mp4\n"
    )
    report = import_minerva(tmp_path / "release.json", tmp_path / "videos.csv", tmp_path / "out")
    assert report.written == 2  # the id that is no URL still finds its row of the CSV
    assert len(report.problems) == 1 and "record 3 (long): video_id:" in report.problems[0]
    assert "cannot be looked up (File name too long)" in report.problems[0]
