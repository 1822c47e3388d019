"""A toy judge, a toy method and a toy benchmark system, registered from test code alone
(`toy_system.py`, run in a subprocess so its registrations stay out of this process), run end to
end through `vqakit eval`, and found in config.yaml, results.json, scores and the report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from vqakit.video import write_index_clip

TOY = Path(__file__).with_name("toy_system.py")


def toy(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, str(TOY), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("toybench")
    write_index_clip(root / "media/clip.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "toy", "version": "1", "license": "CC0-1.0", "description": "Toy questions."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = [
        {
            "id": f"q{i}",
            "videos": [{"path": "media/clip.mp4"}],
            "question": f"Toy question {i}?",
            "choices": ["zero", "one", "two", "three"],
            "answer": i % 4,
            "metadata": {"category": "toy", "colour": ["red", "blue"][i % 2]},
        }
        for i in range(4)
    ]
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    replies = [{"sample_id": f"q{i}:polite", "reply": "yes" if i != 1 else "no"} for i in range(4)]
    (root / "judge.jsonl").write_text("".join(json.dumps(r) + "\n" for r in replies))
    return root


@pytest.fixture(scope="module")
def run(bench: Path) -> Path:
    result = toy(
        "eval",
        str(bench),
        "--method",
        "toy-pick",
        "--method-arg",
        "pick=2",
        "--judge",
        f"politeness=replay:{bench / 'judge.jsonl'}",
        "--group-by",
        "toy_colour",
        "--out",
        "../run",  # beside the benchmark: a run never goes inside its benchmark's folder
        cwd=bench,
    )
    assert result.returncode == 0, result.stderr
    assert "toy-pick: MCQ accuracy 25.0%" in result.stdout
    return bench.parent / "run"


def test_the_method_owns_its_options(run: Path, bench: Path):
    config = yaml.safe_load((run / "config.yaml").read_text())
    assert config["method"] == "toy-pick" and config["method_args"] == {"pick": 2, "loud": False}
    assert config["judges"] == {"politeness": f"replay:{bench / 'judge.jsonl'}"}


def test_judge_metric_and_group_reach_results_and_scores(run: Path):
    results = json.loads((run / "results.json").read_text())
    assert results["politeness"]["polite"]["n"] == 4
    assert results["politeness"]["polite"]["mean"] == pytest.approx(0.75)
    assert results["toy_words"] == {"n": 4, "mean": 4.0}
    assert set(results["groups"]["toy_colour"]) == {"colour red", "colour blue"}
    scores = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    assert [row["polite"] for row in scores] == [True, False, True, True]
    kinds = [json.loads(line)["kind"] for line in (run / "judgments.jsonl").read_text().splitlines()]
    assert kinds == ["politeness"] * 4


def test_report_shows_the_judge_the_section_and_the_detail(run: Path):
    page = (run / "report.html").read_text()
    assert "Politeness (0-1)" in page and "Toy words per reply" in page
    cards = (run / "samples/page-001.html").read_text()
    assert "toy detail of q3" in cards and "Politeness (0-1) judge said: no" in cards


def test_resuming_makes_no_new_judgments(run: Path, bench: Path):
    again = toy(
        "eval", str(bench), "--method", "toy-pick", "--method-arg", "pick=2",
        "--judge", f"politeness=replay:{bench / 'judge.jsonl'}", "--group-by", "toy_colour",
        "--out", "../run", cwd=bench,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "(4 resumed, 0 run)" in again.stdout
    assert len((run / "judgments.jsonl").read_text().splitlines()) == 4


def test_bad_method_options_are_refused_before_the_run(bench: Path):
    too_big = toy(
        "eval", str(bench), "--method", "toy-pick", "--method-arg=pick=9", "--out", "../x", cwd=bench
    )
    assert too_big.returncode == 2 and "method toy-pick: pick" in too_big.stderr
    unknown = toy("eval", str(bench), "--method", "toy-pick", "--top-clips", "3", "--out", "../x", cwd=bench)
    assert unknown.returncode == 2 and "has no option top_clips (its options: loud, pick)" in unknown.stderr
    assert not (bench.parent / "x").exists()


def test_the_validation_check_and_the_listings(bench: Path, tmp_path: Path):
    purple = tmp_path / "purple"
    purple.mkdir()
    (purple / "benchmark.yaml").write_text((bench / "benchmark.yaml").read_text())
    (purple / "media").mkdir()
    (purple / "media/clip.mp4").write_bytes((bench / "media/clip.mp4").read_bytes())
    sample = json.loads((bench / "samples.jsonl").read_text().splitlines()[0])
    sample["metadata"]["colour"] = "purple"
    (purple / "samples.jsonl").write_text(json.dumps(sample) + "\n")
    result = toy("validate", str(purple), cwd=tmp_path)
    assert result.returncode == 1
    assert "samples.jsonl:1: metadata.colour: the toy system does not allow purple" in result.stdout
    listed = toy("systems", cwd=tmp_path).stdout
    assert "toy: A toy system" in listed and "politeness" in listed
    assert "toy-pick" in toy("methods", cwd=tmp_path).stdout
