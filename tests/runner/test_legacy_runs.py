"""Run folders written before judges were plug-ins and methods owned their options (vqakit 0.1:
flat config fields such as `rubric_judge`, `top_clips`, `hints`; judgment records of kind
`judge`) resume with the same command and re-score to the same results. The fixtures under
tests/fixtures/legacy_runs were written by that version."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

LEGACY = Path(__file__).resolve().parents[1] / "fixtures" / "legacy_runs"

COMMANDS = {
    "direct": [
        "--model", "replay:answers.jsonl", "--judge", "replay:judge.jsonl",
        "--extractor", "replay:judge.jsonl", "--rubric-judge", "replay:rubric.jsonl",
    ],
    "rag": [
        "--method", "rag", "--model", "replay:rag.jsonl", "--sufficiency-judge", "replay:suff.jsonl",
        "--index", "idx",
    ],
    "hints": ["--method", "hints", "--model", "replay:answers.jsonl", "--hints", "box+classes+temporal"],
}  # fmt: skip


def _same(a, b) -> bool:
    """JSON equality with NaN equal to NaN (intervals of empty groups)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _without_interval(summary, before=None):
    """A summary without the name of its interval's method (a key added since), and without the
    interval where it is now clustered by video (the sample's questions share videos: since
    then those intervals account for it, `vqakit.scoring._intervals`), in `summary` and in the
    same place of `before`."""
    if not isinstance(summary, dict):
        return summary
    if "clusters" in summary:
        return {k: v for k, v in summary.items() if k not in ("interval", "clusters", "ci95")}
    if isinstance(before, dict) and "clusters" in before:
        return {k: v for k, v in summary.items() if k not in ("interval", "ci95")}
    return {k: _without_interval(v, (before or {}).get(k) if isinstance(before, dict) else None)
            for k, v in summary.items() if k != "interval"}  # fmt: skip


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    shutil.copytree(LEGACY, tmp_path / "legacy")
    return tmp_path / "legacy"


@pytest.mark.parametrize("run", sorted(COMMANDS))
def test_an_old_run_folder_resumes_and_rescores_the_same(legacy: Path, run: str):
    folder = legacy / "runs" / run
    before = json.loads((folder / "results.json").read_text())
    before_scores = (folder / "scores.jsonl").read_text().splitlines()
    judgments = (folder / "judgments.jsonl").read_text() if (folder / "judgments.jsonl").exists() else ""
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", "eval", "sample", *COMMANDS[run], "--out", f"runs/{run}"],
        capture_output=True,
        text=True,
        cwd=legacy,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "(46 resumed, 0 run)" in result.stdout
    after = json.loads((folder / "results.json").read_text())
    # every result the old version wrote is there with the same numbers; only small groups'
    # intervals changed (Wilson's, where a bootstrap of a few samples degenerated), and those of
    # questions that share a video (clustered by video since)
    # Since then `overall` is defined only for a run that scored one kind of sample (null when
    # MCQ and judged open-ended samples were both scored) and `groups` break down MCQ accuracy
    # alone (open-ended accuracy under `open_ended_groups`): see vqakit.scoring._headline.
    both_kinds = after["mcq"]["n"] and after["open_ended"]["n"]
    for key, value in before.items():
        if key == "object_recall":  # read since from the description around each object id
            assert after[key]["n"] == value["n"]
        elif key == "overall" and both_kinds:
            assert after["overall"] is None
        elif key not in ("groups", "hidden_groups"):
            assert _same(_without_interval(after[key]), _without_interval(value, after[key])), key
    assert after["groups"].keys() == before["groups"].keys()
    for group, buckets in before["groups"].items():
        for name, summary in buckets.items():
            kept = after["groups"][group].get(name)
            if both_kinds:  # the old buckets pooled both kinds; the MCQ part is never larger
                assert kept is None or kept["n"] <= summary["n"], (group, name)
                continue
            assert (kept["n"], kept["accuracy"]) == (summary["n"], summary["accuracy"]), (group, name)
            if summary["n"] >= 30 and "clusters" not in kept:
                assert _same(kept["ci95"], summary["ci95"])
    after_scores = (folder / "scores.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in after_scores] == [json.loads(line) for line in before_scores]
    if judgments:  # nothing was judged again: the old records (kind "judge" included) still count
        assert (folder / "judgments.jsonl").read_text() == judgments
    assert after["errors"]["n"] == 0 and "MCQ accuracy" in (folder / "report.html").read_text()
