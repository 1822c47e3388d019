"""`vqakit stats` on the shipped sample matches counts made by hand from its files, and `validate`
warns (without failing) about reasoning traces with no timestamp or no object."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from click.testing import CliRunner

from vqakit.benchmarks import benchmark_stats, load_benchmark, resolve_benchmark
from vqakit.cli import main


def test_stats_of_the_sample_match_hand_counts(tmp_path: Path):
    stats = benchmark_stats(load_benchmark("sample"))
    assert stats["questions"] == {"n": 46, "mcq": 36, "open_ended": 10}
    assert stats["options_per_question"] == {5: 28, 6: 8}
    assert stats["gold_letters"] == {"A": 7, "B": 8, "C": 5, "D": 8, "E": 7, "F": 1}
    assert stats["videos"]["n"] == 8 and stats["clips"] == 10 and stats["passages"] == 7
    assert sum(stats["videos"]["duration_histogram"].values()) == 8
    assert stats["videos"]["duration_histogram"]["1-3 min"] == 1  # pedestrians.mp4, 79.5 s
    assert stats["videos"]["duration_s"]["max"] == 79.5
    assert stats["categories"]["temporal"] == 14 and sum(stats["categories"].values()) == 46
    assert stats["traces"]["n"] == 7 and stats["traces"]["without_timestamp"] == 0
    result = CliRunner().invoke(main, ["stats", "sample", "--out", str(tmp_path / "s.json")])
    assert result.exit_code == 0 and "46 questions (36 multiple choice, 10 open-ended)" in result.output
    assert json.loads((tmp_path / "s.json").read_text())["questions"]["n"] == 46


def test_validate_warns_about_traces_without_times_or_objects(tmp_path: Path):
    bench = tmp_path / "bench"
    shutil.copytree(resolve_benchmark("sample"), bench)
    lines = (bench / "samples.jsonl").read_text().splitlines()
    traced = next(i for i, line in enumerate(lines) if '"reasoning"' in line)
    sample = json.loads(lines[traced])
    sample["reasoning"] = "1. The circle moves to the right.\n2. So it moved right."
    lines[traced] = json.dumps(sample)
    (bench / "samples.jsonl").write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["validate", str(bench), "--no-media"])
    assert result.exit_code == 0
    assert f"warning: samples.jsonl:{traced + 1}: reasoning: the trace gives no timestamp" in result.output
    assert f"warning: samples.jsonl:{traced + 1}: reasoning: the trace names no object id" in result.output
