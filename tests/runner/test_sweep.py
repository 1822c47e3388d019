from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.runner import expand_values
from vqakit.scoring import LETTERS


def test_expand_values():
    assert expand_values("frames", "uniform:0,1,8") == ["uniform:0", "uniform:1", "uniform:8"]
    assert expand_values("short_side", "224,448") == [224, 448]
    with pytest.raises(ValueError):
        expand_values("frames", "0,1,8")


def test_frames_sweep_makes_one_run_per_value(tmp_path):
    bench = load_benchmark("sample")
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": s.id, "reply": LETTERS[s.answer] if s.is_mcq else "x"}) + "\n"
            for s in bench.samples
        )
    )
    out = tmp_path / "sweep"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vqakit",
            "sweep",
            "sample",
            "--model",
            f"replay:{replies}",
            "--frames",
            "uniform:0,2,4",
            "--limit",
            "6",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads((out / "sweep.json").read_text())
    assert [run["value"] for run in summary["runs"]] == ["uniform:0", "uniform:2", "uniform:4"]
    for run, count in zip(summary["runs"], (0, 2, 4), strict=True):
        lines = Path(run["folder"], "predictions.jsonl").read_text().splitlines()
        predictions = [json.loads(line) for line in lines]
        assert {len(p["frames_s"]) for p in predictions} == {count}
        assert run["accuracy"] == 1.0
    page = (out / "sweep.html").read_text()
    assert page.count("<circle") == 3 and "uniform:4" in page
    assert "uniform:2" in result.stdout and "100.0%" in result.stdout
