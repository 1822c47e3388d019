"""Every surface that shows an accuracy's interval says what kind it is: the eval line,
report.html, `vqakit export` (`interval`, `clusters`), `vqakit table --ci` and `vqakit compare`
(clustered rows marked). The sample benchmark's questions share 8 videos."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("intervals")
    first = run_eval(EvalConfig(bench="sample", method="random"), root / "random").folder
    second = run_eval(EvalConfig(bench="sample", method="random", seed=1), root / "seed1").folder
    return first, second


def test_results_and_report_say_the_intervals_are_clustered(runs):
    results = json.loads((runs[0] / "results.json").read_text())
    assert results["mcq"]["interval"] == "wilson (effective n)" and results["mcq"]["clusters"] == 8
    assert results["headline"][0]["clusters"] == 8
    page = (runs[0] / "report.html").read_text()
    assert "(clustered by video: 8 clusters), n=36 samples" in page
    assert '<th class="num">videos</th>' in page and "95% intervals are clustered by video" in page


def test_export_names_each_interval(runs):
    exported = CliRunner().invoke(main, ["export", str(runs[0]), "--format", "csv"])
    assert exported.exit_code == 0, exported.output
    rows = list(csv.DictReader(io.StringIO(exported.output)))
    head = next(r for r in rows if r["measure"] == "MCQ accuracy" and not r["group"])
    assert (head["interval"], head["clusters"]) == ("wilson (effective n)", "8")
    single = next(r for r in rows if r["group"] == "category" and r["key"] == "camera")  # one question
    assert (single["interval"], single["clusters"]) == ("wilson", "")


def test_table_with_intervals(runs):
    folders = [str(folder) for folder in runs]
    text = CliRunner().invoke(main, ["table", *folders, "--by", "category", "--ci"]).output
    header, _, first, _, _, note = text.splitlines()[:6]
    assert header.startswith("| run | camera |") and first.startswith("| random (random) |")
    assert first.count(" [") == header.count("|") - 2  # every accuracy with its interval
    assert note.startswith("95% intervals are clustered by video")
    plain = CliRunner().invoke(main, ["table", *folders, "--by", "category"]).output
    assert " [" not in plain and "clustered" not in plain
    table = CliRunner().invoke(main, ["table", *folders, "--by", "category", "--ci", "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(table.stdout)))  # the note goes to stderr
    assert (
        float(rows[0]["overall ci95_low"]) <= float(rows[0]["overall"]) <= float(rows[0]["overall ci95_high"])
    )
    latex = CliRunner().invoke(main, ["table", *folders, "--by", "category", "--ci", "--format", "latex"])
    assert latex.stdout.rstrip().endswith("\\end{tabular}")
    assert latex.stderr.startswith("95% intervals are clustered by video")


def test_compare_marks_clustered_rows(runs):
    result = CliRunner().invoke(main, ["compare", *map(str, runs)])
    assert result.exit_code == 0, result.output
    overall = next(line for line in result.output.splitlines() if line.startswith("MCQ accuracy"))
    assert overall.endswith(" *") and "* clustered by video" in result.output
    as_json = json.loads(CliRunner().invoke(main, ["compare", *map(str, runs), "--json"]).output)
    assert as_json["mcq"]["clusters"] == 8 and 0 <= as_json["mcq"]["mcnemar_per_question_p"] <= 1


def test_the_benchmarks_own_table_with_intervals(tmp_path):
    examples = Path(__file__).resolve().parents[2] / "docs/examples/datasets"
    bench = tmp_path / "nextqa"
    imported = CliRunner().invoke(
        main,
        ["import", "nextqa", str(examples / "nextqa/dataset/nextqa"), "--videos",
         str(examples / "nextqa/NExTVideo"), "--out", str(bench)],
    )  # fmt: skip
    assert imported.exit_code == 0, imported.output
    run = run_eval(EvalConfig(bench=str(bench), method="random"), tmp_path / "run").folder
    official = json.loads((run / "results.json").read_text())["official"]
    pooled = next(column for column in official["columns"] if column["name"] == "All")
    text = CliRunner().invoke(main, ["table", str(run), "--ci"]).output
    lines = text.splitlines()
    assert lines[0].startswith("| run | Why | How | Bef&Aft |")
    assert (
        f"{100 * pooled['accuracy']:.1f} [{100 * pooled['ci95'][0]:.1f}, {100 * pooled['ci95'][1]:.1f}]"
        in lines[2]
    )
    assert lines[-1].startswith("95% intervals")
