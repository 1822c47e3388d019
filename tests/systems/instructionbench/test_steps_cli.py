"""`vqakit steps`, invoked through its click command."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vqakit.cli.steps import FORMAT_CHOICES, steps
from vqakit.systems.instructionbench.importers import FORMATS

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "instructionbench"


def run(*args: str):
    return CliRunner().invoke(steps, [str(a) for a in args])


def test_prints_one_video_per_line_with_the_fields_first():
    result = run(FIXTURES / "youcookii_annotations_trainval.json")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(records) == 3
    assert list(records[0])[:6] == ["video_id", "theme", "duration", "start", "end", "steps"]
    assert list(records[0]["steps"][0])[:5] == ["start", "end", "text", "level", "children"]
    assert records[0]["steps"][0] == {
        "start": 90.0,
        "end": 102.0,
        "text": "spread margarine on two slices of white bread",
        "level": 0,
        "children": [],
        "category": None,
        "extra": {"id": 0},
    }
    assert "format: youcook2 (detected)" in result.stderr and "problems: 0" in result.stderr


def test_trim_prints_clips_and_the_summary_counts_them():
    result = run(FIXTURES / "goalstep_train.json", "--trim")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["clip_id"].rsplit("@", 1)[1] for r in records] == ["2.95-291.82", "282.24-715.5"]
    assert records[0]["start"] == 2.94661 and records[0]["steps"][4]["children"][0]["level"] == 1
    assert (
        "clips: 2 from 1 trimmed video(s); tails left out: 5 step(s) in 2 video(s); 1 video(s) made no clip"
        in result.stderr
    )
    assert "problems: 2" in result.stderr and "substep lies 51.2 s outside its step" in result.stderr
    assert "notes: integer times: 2; missing flags: 1; substeps outside their step: 3" in result.stderr


def test_trim_leaves_other_formats_whole_and_reports_untimed_videos():
    result = run(FIXTURES / "all_data_train.json", "--trim")
    assert len(result.stdout.splitlines()) == 4 and "clips: 0" in result.stderr
    result = run(FIXTURES / "goalstep_test.json", "--trim")
    assert len(result.stdout.splitlines()) == 2
    assert (
        "steps without times; not trimmed" in result.stderr
        and "missing: duration in 2 video(s)" in result.stderr
    )


def test_format_and_label_map_options():
    result = run(
        FIXTURES / "youcookii_annotations_trainval.json", "--label-map", FIXTURES / "label_foodtype.csv"
    )
    first = json.loads(result.stdout.splitlines()[0])
    assert first["theme"] == "grilled cheese"
    result = run(FIXTURES / "steps.jsonl", "--format", "table")
    assert result.exit_code == 0 and "format: table (given)" in result.stderr


def test_errors_are_one_line_without_a_traceback(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"videos": [')
    result = run(bad)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"Error: {bad}: invalid JSON") and "Traceback" not in result.output
    result = run(FIXTURES / "steps.csv", "--format", "keystep")
    assert result.exit_code == 1 and "not a keystep file" in result.stderr
    result = run(tmp_path / "missing.json")
    assert result.exit_code == 1 and "file not found" in result.stderr
    result = run(FIXTURES / "steps.csv", "--format", "ego4d")
    assert result.exit_code == 2


def test_format_choices_match_the_library():
    assert ("auto", *FORMATS) == FORMAT_CHOICES
