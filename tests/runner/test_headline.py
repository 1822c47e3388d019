"""One definition of each headline number, the same on every surface: the eval line,
report.html, results.json, `vqakit export`, `vqakit compare`, `vqakit table` and `vqakit runs`
show a run's MCQ accuracy and open-ended accuracy, each named, and no pooled "overall" for a run
that scored both kinds (real loopback server for the model and the judge)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval


@pytest.fixture(scope="module")
def mixed_run(tmp_path_factory) -> tuple[Path, str]:
    """The sample benchmark answered by a model that always says B, open-ended answers judged yes."""
    folder = tmp_path_factory.mktemp("runs") / "mixed"
    with FakeServer(default="ok:Answer: B") as model, FakeServer(default="ok:yes - the same") as judge:
        result = CliRunner().invoke(
            main,
            [
                "eval", "sample", "--model", f"openai-compatible:{model.url}#m", "--frames", "uniform:2",
                "--judge", f"open=openai-compatible:{judge.url}#j", "--out", str(folder),
            ],
        )  # fmt: skip
    assert result.exit_code == 0, result.output
    return folder, result.output


def pct(value: float) -> str:
    return f"{100 * value:.1f}"


def test_results_json_names_each_kind_and_has_no_overall_for_a_mixed_run(mixed_run):
    folder, _ = mixed_run
    results = json.loads((folder / "results.json").read_text())
    assert results["mcq"]["n"] == 36 and results["open_ended"]["n"] == 10
    assert results["overall"] is None  # an option picked among five and a yes/no are not one measure
    assert [entry["key"] for entry in results["headline"]] == ["mcq", "open_ended"]
    assert [entry["label"] for entry in results["headline"]] == ["MCQ accuracy", "open-ended accuracy"]
    # breakdowns keep the kinds apart: "object" has 7 MCQ and 2 open-ended samples, "subtitles"
    # only open-ended ones (main pooled them, and showed "subtitles 100.0" beside MCQ accuracy)
    assert results["groups"]["category"]["object"]["n"] == 7
    assert results["open_ended_groups"]["category"]["object"]["n"] == 2
    assert "subtitles" not in results["groups"]["category"]
    assert results["open_ended_groups"]["category"]["subtitles"]["accuracy"] == 1.0


def test_every_surface_shows_the_same_numbers(mixed_run, tmp_path):
    folder, line = mixed_run
    results = json.loads((folder / "results.json").read_text())
    mcq, open_ended = pct(results["mcq"]["accuracy"]), pct(results["open_ended"]["accuracy"])
    # the eval line
    assert f"MCQ accuracy {mcq}% [95% CI" in line and f"open-ended accuracy {open_ended}%" in line
    # report.html: the same two, named; no unnamed "Accuracy" headline
    report = (folder / "report.html").read_text()
    assert re.search(rf"MCQ accuracy {mcq}%", report) and re.search(
        rf"open-ended accuracy {open_ended}%", report
    )
    assert "<h2>Accuracy" not in report
    # vqakit export
    exported = CliRunner().invoke(main, ["export", str(folder), "--format", "csv"]).output
    rows = {(r["measure"], r["group"], r["key"]): r for r in csv.DictReader(io.StringIO(exported))}
    assert pct(float(rows[("MCQ accuracy", "", "")]["value"])) == mcq
    assert pct(float(rows[("open-ended accuracy", "", "")]["value"])) == open_ended
    assert not any(measure == "overall accuracy" for measure, _, _ in rows)
    # vqakit compare (the run with itself: A is the run)
    compared = json.loads(CliRunner().invoke(main, ["compare", str(folder), str(folder), "--json"]).output)
    assert (
        pct(compared["mcq"]["accuracy_a"]) == mcq and pct(compared["open_ended"]["accuracy_a"]) == open_ended
    )
    assert compared["overall"] is None
    text = CliRunner().invoke(main, ["compare", str(folder), str(folder)]).output
    assert re.search(rf"MCQ accuracy\s+36\s+{mcq}%", text)
    # vqakit table: a block per kind, each ending with its accuracy; the category columns of the
    # MCQ block are MCQ accuracies, the open-ended ones apart
    table = CliRunner().invoke(main, ["table", str(folder), "--by", "category", "--format", "csv"]).output
    header, row = list(csv.reader(io.StringIO(table)))
    cells = dict(zip(header, row, strict=True))
    assert pct(float(cells["MCQ accuracy"])) == mcq and pct(float(cells["open-ended accuracy"])) == open_ended
    assert pct(float(cells["object · MCQ"])) == pct(results["groups"]["category"]["object"]["accuracy"])
    assert cells["subtitles · open-ended"] == "1.0" and "subtitles · MCQ" not in cells
    assert "overall" not in header
    # vqakit runs
    listing = CliRunner().invoke(main, ["runs", str(folder.parent)]).output
    assert f"MCQ {mcq}% (36) · open {open_ended}% (10)" in listing and listing.rstrip().endswith(str(folder))


def test_a_run_of_one_kind_has_overall_and_table_calls_it_so(tmp_path):
    run = run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "random")
    results = run.results
    assert results["overall"] == results["mcq"] and results["open_ended"]["n"] == 0
    table = CliRunner().invoke(main, ["table", str(run.folder), "--by", "category", "--format", "csv"]).output
    header, row = list(csv.reader(io.StringIO(table)))
    assert header[-1] == "overall" and pct(float(row[-1])) == pct(results["mcq"]["accuracy"])
