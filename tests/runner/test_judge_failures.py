"""A judge that fails is an error, never a quiet `n/a`: counted in results.json's `errors` (by
judge and kind), listed by `vqakit eval` with exit 1, shown in the report, and graded again when
the same command is rerun. The model and the judge are real loopback servers (`fake_server`)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.runs import RunFolder

OPEN_ENDED = ("ped-surface", "ped-yellow-object")  # the open-ended samples among the first nine


def spec(server: FakeServer, name: str) -> str:
    return f"openai-compatible:{server.url}#{name}"


def evaluate(model: FakeServer, judge: FakeServer, out: Path) -> object:
    arguments = [
        "eval", "sample", "--model", spec(model, "m"), "--limit", "9", "--frames", "uniform:2",
        "--judge", f"open={spec(judge, 'j')}", "--out", str(out),
    ]  # fmt: skip
    return CliRunner().invoke(main, arguments)


def judge_requests(server: FakeServer) -> int:
    return len(server.requests)


def test_a_failing_judge_is_an_error_and_a_rerun_retries_it(tmp_path: Path):
    run = tmp_path / "run"
    with FakeServer(default="ok:Answer: B") as model, FakeServer(default="401") as judge:
        failed = evaluate(model, judge, run)
        assert failed.exit_code == 1, failed.output
        assert "2 sample(s) ended in an error (judge open: auth 2); rerun the same command" in failed.output
        results = json.loads((run / "results.json").read_text())
        assert results["errors"] == {
            "n": 2,
            "by_kind": {"judge open: auth": 2},
            "counted_as_wrong": False,
            "by_judge": {"open": {"auth": 2}},
            "scored_without_judge": 0,
        }
        assert results["open_ended"]["n"] == 0 and results["mcq"]["n"] == 7
        scores = RunFolder(run).scores()
        for sample_id in OPEN_ENDED:
            assert scores[sample_id]["status"] == "error: judge open: auth"
            assert scores[sample_id]["judge_errors"] == {"open": "auth"}
            assert scores[sample_id]["correct"] is None
        records = [json.loads(line) for line in (run / "judgments.jsonl").read_text().splitlines()]
        assert [r["error_kind"] for r in records] == ["auth", "auth"]
        report = (run / "report.html").read_text()
        assert "2 sample(s) ended in an error</b> (judge open: auth 2)" in report
        assert "<b>judges that failed</b>: open (auth 2)" in report
        page = (run / "samples/page-001.html").read_text()
        assert "judge failed (auth): " in page and "error: judge open: auth" in page

        asked = judge_requests(judge)
        judge.default = "ok:yes - the same thing"  # the judge's key is fixed
        fixed = evaluate(model, judge, run)
        assert fixed.exit_code == 0, fixed.output
        assert judge_requests(judge) == asked + 2  # only the two failed judgments are asked again
    results = json.loads((run / "results.json").read_text())
    assert results["errors"]["n"] == 0 and results["errors"]["by_judge"] == {}
    assert results["open_ended"] == {**results["open_ended"], "n": 2, "accuracy": 1.0}
    assert "error" not in fixed.output
    assert {RunFolder(run).scores()[s]["status"] for s in OPEN_ENDED} == {"judged"}


def test_an_unreadable_extraction_is_an_error_not_an_abstention(tmp_path: Path):
    """The extract judge failing on a reply the rules could not read leaves the sample out (an
    error), where it used to count as a wrong abstention; --errors-as-wrong counts it wrong."""
    run = tmp_path / "run"
    with FakeServer(default="ok:I cannot decide.") as model, FakeServer(default="401") as judge:
        arguments = [
            "eval", "sample", "--model", spec(model, "m"), "--limit", "2", "--frames", "uniform:2",
            "--judge", f"extract={spec(judge, 'x')}", "--out", str(run),
        ]  # fmt: skip
        done = CliRunner().invoke(main, arguments)
        strict = CliRunner().invoke(main, [*arguments[:-1], str(tmp_path / "strict"), "--errors-as-wrong"])
    assert strict.exit_code == 1, strict.output
    assert done.exit_code == 1 and "judge extract: auth 2" in done.output
    results = json.loads((run / "results.json").read_text())
    assert results["mcq"]["n"] == 0 and results["errors"]["by_kind"] == {"judge extract: auth": 2}
    strict_results = json.loads((tmp_path / "strict/results.json").read_text())
    assert strict_results["mcq"] == {**strict_results["mcq"], "n": 2, "accuracy": 0.0}
    assert strict_results["errors"]["counted_as_wrong"] is True
