"""Each preset's run prints its benchmark's own table by default (`vqakit table RUN`): the column
names, order and merges of the official evaluation (NExT-QA's TP folded into Bef&Aft, Video-MME's
durations per subtitle setting, MLVU's M-Avg as the mean of its tasks). Replies are scripted per
question by `fake_server`, a test double at the HTTP boundary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval

FIXTURES = Path(__file__).resolve().parents[3] / "docs/examples/datasets"
NEXTQA_COLUMNS = "| run | Why | How | Bef&Aft | When | Cnt | Loc | Other | Acc_C | Acc_T | Acc_D | All |"


@pytest.fixture(autouse=True)
def cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def imported(name: str, release: str, videos: str, out: Path) -> Path:
    result = CliRunner().invoke(
        main, ["import", name, str(FIXTURES / release), "--videos", str(FIXTURES / videos), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def evaluate(bench: Path, run: Path, by_text: dict[str, str], **settings) -> dict:
    with FakeServer(default="ok:I cannot tell.", by_text=by_text) as server:
        done = run_eval(
            EvalConfig(
                bench=str(bench), model=f"openai-compatible:{server.url}#fake", frames="uniform:2", **settings
            ),
            run,
        )
    return done.results


def table(*arguments: str) -> str:
    result = CliRunner().invoke(main, ["table", *arguments])
    assert result.exit_code == 0, result.output
    return result.output


def test_a_nextqa_run_prints_nextqa_s_own_table_with_tp_in_bef_and_aft(tmp_path: Path):
    bench = imported("nextqa", "nextqa/dataset/nextqa", "nextqa/NExTVideo", tmp_path / "nextqa")
    replies = {
        "how do the two man play": "ok:A",  # CH, right
        "why did the man move": "ok:(B)",  # CW, wrong (C)
        "after going to the cushion": "ok:The answer is B.",  # TN, right
        "before lying down": "ok:A",  # TP, wrong (D)
        "how many dogs": "ok:E",  # DC, right
    }
    results = evaluate(bench, tmp_path / "run", replies)
    lines = table(str(tmp_path / "run")).splitlines()
    assert lines[0] == NEXTQA_COLUMNS
    assert lines[2] == "| direct | 0.0 | 100.0 | 50.0 |  | 100.0 |  |  | 50.0 | 50.0 | 100.0 | 60.0 |"
    assert "Columns as in doc-doc/NExT-QA eval_mc.py" in lines[-1]
    official = {column["name"]: column for column in results["official"]["columns"]}
    assert official["Bef&Aft"]["n"] == 2 and official["Acc_T"]["n"] == 2 and official["All"]["n"] == 5
    assert official["When"]["n"] == 0 and official["When"]["accuracy"] is None
    page = (tmp_path / "run/report.html").read_text()  # the report shows it under the headline
    assert "own table" in page and "Bef&amp;Aft" in page and "All (headline)" in page
    # vqakit's own view, each code apart, stays one option away
    by_type = table(str(tmp_path / "run"), "--by", "type").splitlines()
    assert by_type[0] == "| run | CH | CW | DC | TN | TP | overall |"
    csv = table(str(tmp_path / "run"), "--format", "csv").splitlines()
    assert csv[0] == "run,Why,How,Bef&Aft,When,Cnt,Loc,Other,Acc_C,Acc_T,Acc_D,All"
    assert csv[1] == "direct,0.0,1.0,0.5,,1.0,,,0.5,0.5,1.0,0.6"


def test_videomme_runs_without_and_with_subtitles_share_a_row(tmp_path: Path):
    bench = imported("videomme", "videomme", "videomme/data", tmp_path / "videomme")
    with FakeServer(default="ok:I cannot tell.", by_text={"subtitles": "ok:C"}) as server:
        for run, subtitles in (("plain", False), ("subs", True)):
            config = EvalConfig(
                bench=str(bench), model=f"openai-compatible:{server.url}#fake", frames="uniform:2", limit=3,
                subtitles=subtitles,
            )  # fmt: skip
            run_eval(config, tmp_path / run)
    lines = table(str(tmp_path / "plain"), str(tmp_path / "subs")).splitlines()
    assert lines[0] == (
        "| run | Short (w/o subs) | Medium (w/o subs) | Long (w/o subs) | Overall (w/o subs) "
        "| Short (w subs) | Medium (w subs) | Long (w subs) | Overall (w subs) |"
    )
    assert lines[2] == "| direct | 0.0 | 0.0 |  | 0.0 | 50.0 | 0.0 |  | 33.3 |"
    assert len(lines) == 3 + 3  # one row, then a blank line, the source and the note
    assert "leaves out of the accuracy a reply it reads no letter from" in lines[-1]


def test_mlvu_headline_is_the_mean_of_its_task_accuracies(tmp_path: Path):
    bench = imported("mlvu", "mlvu/MLVU", "mlvu/MLVU/video", tmp_path / "mlvu")
    replies = {"coat": "ok:A", "opens the door": "ok:A", "ball bounce": "ok:C"}  # plotQA 1 of 2, count 1 of 1
    results = evaluate(bench, tmp_path / "run", replies)
    assert results["mcq"]["accuracy"] == pytest.approx(2 / 3)
    official = {column["name"]: column for column in results["official"]["columns"]}
    assert official["M-Avg"]["accuracy"] == pytest.approx(0.75) and official["M-Avg"]["keys"] == {
        "count": 1.0,
        "plotQA": 0.5,
    }
    low, high = official["M-Avg"]["ci95"]
    assert 0.0 <= low <= 0.75 <= high <= 1.0
    entry = next(e for e in results["headline"] if e["key"] == "official")
    assert entry["label"] == "M-Avg (mean of 2 accuracies)" and entry["value"] == pytest.approx(0.75)
    lines = table(str(tmp_path / "run")).splitlines()
    assert lines[0] == "| run | TR | AR | NQA | ER | PQA | AO | AC | M-Avg |"
    assert lines[2] == "| direct |  |  |  |  | 50.0 |  | 100.0 | 75.0 |"
    assert any("G-Avg" in line for line in lines[3:])


def test_table_without_by_names_what_to_do_for_a_benchmark_without_its_own_table(tmp_path: Path):
    run_eval(EvalConfig(bench="sample", method="random", limit=3), tmp_path / "run")
    result = CliRunner().invoke(main, ["table", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert "hold no benchmark table" in result.output and "--by GROUP" in result.output
    assert "the runs have category, skills" in " ".join(result.output.split())
    result = CliRunner().invoke(main, ["table", str(tmp_path / "run"), "--columns", "a"])
    assert result.exit_code == 2 and "give --by too" in result.output


def test_a_run_scored_before_the_table_existed_gets_it_from_vqakit_report(tmp_path: Path):
    bench = imported("nextqa", "nextqa/dataset/nextqa", "nextqa/NExTVideo", tmp_path / "nextqa")
    evaluate(bench, tmp_path / "run", {})
    results_file = tmp_path / "run/results.json"
    results = json.loads(results_file.read_text())
    del results["official"]
    results_file.write_text(json.dumps(results))
    assert CliRunner().invoke(main, ["table", str(tmp_path / "run")]).exit_code == 2
    assert CliRunner().invoke(main, ["report", str(tmp_path / "run")]).exit_code == 0
    assert table(str(tmp_path / "run")).splitlines()[0] == NEXTQA_COLUMNS


def test_runs_of_benchmarks_with_different_tables_are_refused_without_by(tmp_path: Path):
    nextqa = imported("nextqa", "nextqa/dataset/nextqa", "nextqa/NExTVideo", tmp_path / "nextqa")
    mlvu = imported("mlvu", "mlvu/MLVU", "mlvu/MLVU/video", tmp_path / "mlvu")
    evaluate(nextqa, tmp_path / "a", {})
    evaluate(mlvu, tmp_path / "b", {})
    result = CliRunner().invoke(main, ["table", str(tmp_path / "a"), str(tmp_path / "b")])
    assert result.exit_code == 1 and "declare different tables" in result.output
