"""`vqakit runs` lists run folders with their headline numbers; `vqakit export` writes their
results as CSV, Markdown or LaTeX; small groups get Wilson intervals."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval
from vqakit.scoring import accuracy_summary, wilson_interval


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("runs")
    run_eval(EvalConfig(bench="sample", method="random"), root / "sample-random")
    run_eval(EvalConfig(bench="sample", method="random", seed=1, limit=10), root / "nested" / "seed1")
    return root


def test_runs_lists_every_run_folder(runs: Path):
    result = CliRunner().invoke(main, ["runs", str(runs)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["updated", "method", "model", "frames", "errors", "headline", "(n)", "run"]
    assert len(lines) == 3
    assert any(line.endswith(str(runs / "sample-random")) and "MCQ 33.3% (36)" in line for line in lines)
    assert "no run folders" in CliRunner().invoke(main, ["runs", str(runs / "nested" / "seed1" / "x")]).output


@pytest.mark.parametrize("fmt", ["csv", "markdown", "latex"])
def test_export_writes_one_table(runs: Path, fmt: str, tmp_path: Path):
    out = tmp_path / f"table.{fmt}"
    folders = [str(runs / "sample-random"), str(runs / "nested" / "seed1")]
    result = CliRunner().invoke(main, ["export", *folders, "--format", fmt, "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    if fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(text)))
        mcq = [r for r in rows if r["measure"] == "MCQ accuracy" and not r["group"]]
        overall = [r for r in rows if r["measure"] == "overall accuracy"]
        assert len(mcq) == 2 and {r["method"] for r in rows} == {"random"}
        assert [r["value"] for r in overall] == [r["value"] for r in mcq]  # one kind: overall is MCQ
        assert any(r["group"] == "category" and r["key"] == "object" for r in rows)
        assert 0 <= float(mcq[0]["value"]) <= 1
    elif fmt == "markdown":
        assert text.startswith("| run | method | model | measure |") and "| MCQ accuracy |" in text
    else:
        assert text.startswith("\\begin{tabular}") and "\\end{tabular}" in text and "ci95\\_low" in text


def test_small_groups_get_wilson_intervals():
    small = accuracy_summary([1.0, 1.0, 1.0])
    assert (
        small["interval"] == "wilson"
        and small["ci95"][1] == 1.0
        and small["ci95"][0] == pytest.approx(0.4385, abs=1e-3)
    )
    large = accuracy_summary([1.0] * 20 + [0.0] * 20)
    assert large["interval"] == "bootstrap"
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-3)


def test_random_reports_analytic_chance(runs: Path):
    import json

    results = json.loads((runs / "sample-random" / "results.json").read_text())
    five, six = 28, 8  # five- and six-option MCQs of the sample
    assert results["chance"] == pytest.approx((five / 5 + six / 6) / 36)
    line = CliRunner().invoke(
        main, ["eval", "sample", "--method", "random", "--out", str(runs / "sample-random")]
    )
    assert f"(chance {100 * results['chance']:.1f}%)" in line.output


def test_table_lays_runs_out_by_group(runs: Path):
    folders = [str(runs / "sample-random"), str(runs / "nested" / "seed1")]
    result = CliRunner().invoke(main, ["table", *folders, "--by", "hop_grounding"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "| run | 1-hop local | 1-hop temporal | 2-hop local | 2-hop temporal | overall |"
    # one method, no model: the folder names tell the rows apart
    assert len(lines) == 4 and lines[2].startswith("| random (sample-random) |")
    assert lines[3].startswith("| random (seed1) |")
    latex = CliRunner().invoke(main, ["table", *folders, "--by", "category", "--format", "latex"]).output
    assert latex.startswith("\\begin{tabular}{lrrrr") and "overall" in latex
    missing = CliRunner().invoke(main, ["table", *folders, "--by", "nosuchgroup"])
    # a usage mistake: exit 2, with the breakdowns the runs have
    text = " ".join(missing.output.split())
    assert (
        missing.exit_code == 2
        and "--by 'nosuchgroup': none of the runs breaks its results down by it" in text
    )
    assert "the runs have: category" in text


def test_table_columns_in_the_papers_order(runs: Path):
    folders = [str(runs / "sample-random"), str(runs / "nested" / "seed1")]
    paper = "1-hop local,2-hop local,1-hop temporal"  # Table 3's order; the one left out follows
    result = CliRunner().invoke(main, ["table", *folders, "--by", "hop_grounding", "--columns", paper])
    assert result.exit_code == 0, result.output
    header = result.output.splitlines()[0]
    assert header == "| run | 1-hop local | 2-hop local | 1-hop temporal | 2-hop temporal | overall |"
    wrong = CliRunner().invoke(main, ["table", *folders, "--by", "hop_grounding", "--columns", "local 1-hop"])
    said = "--columns: no run has hop_grounding key 'local 1-hop'; the keys are: 1-hop local"
    assert wrong.exit_code == 2 and said in " ".join(wrong.output.split())


def test_length_buckets_reach_an_hour_and_hidden_rows_are_listed():
    from vqakit.schema import Sample
    from vqakit.scoring import length_bucket, length_buckets, score_sample, summarise

    assert length_buckets()[-2:] == ["30-60 min", ">1 h"] and length_bucket(3 * 3600) == ">1 h"
    samples = [
        Sample(id=f"s{i}", question="q?", videos=[{"path": "v.mp4"}], choices=["a", "b"], answer=0)
        for i in range(5)
    ]
    from vqakit.schema import Prediction

    rows = [score_sample(s, Prediction(sample_id=s.id, method="m", choice=0)) for s in samples]
    lengths = {"s0": "<1 min", "s1": "<1 min", "s2": "<1 min", "s3": ">1 h", "s4": "30-60 min"}
    results = summarise(
        samples,
        rows,
        extra_groups={"video_length": lengths},
        min_group_size=2,
        order={"video_length": length_buckets()},
    )
    assert list(results["groups"]["video_length"]) == ["<1 min"]
    assert results["hidden_groups"] == {"video_length": {"30-60 min": 1, ">1 h": 1}}
