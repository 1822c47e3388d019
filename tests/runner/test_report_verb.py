"""`vqakit report RUN`: scores.jsonl, results.json, report.html and the sample pages written again
from the run folder alone. No model or judge is called (the run's judge points at a closed port,
and nothing is asked of it); a judgment that is missing stays missing and is reported."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import yaml
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.runs import RunFolder

DROPPED = "ped-yellow-object"  # an open-ended sample whose judgment is taken out of the run


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]  # closed again when the socket is


def test_report_rewrites_a_run_from_its_files_without_calling_anyone(tmp_path: Path):
    run = tmp_path / "run"
    with FakeServer(default="ok:Answer: B") as model, FakeServer(default="ok:yes - the same") as judge:
        made = CliRunner().invoke(
            main,
            [
                "eval", "sample", "--model", f"openai-compatible:{model.url}#m", "--limit", "9",
                "--frames", "uniform:2", "--judge", f"open=openai-compatible:{judge.url}#j",
                "--out", str(run),
            ],
        )  # fmt: skip
    assert made.exit_code == 0, made.output
    before = json.loads((run / "results.json").read_text())
    config = yaml.safe_load((run / "config.yaml").read_text())
    config["judges"]["open"] = f"openai-compatible:http://127.0.0.1:{closed_port()}/v1#j"
    config["model"] = f"openai-compatible:http://127.0.0.1:{closed_port()}/v1#m"
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    lines = (run / "judgments.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line)["sample_id"] != DROPPED]
    assert len(kept) == len(lines) - 1
    (run / "judgments.jsonl").write_text("".join(line + "\n" for line in kept))
    for name in ("report.html", "scores.jsonl"):  # results.json stays: it keeps the evals' wall time
        (run / name).unlink()
    for page in (run / "samples").glob("*.html"):
        page.unlink()

    done = CliRunner().invoke(main, ["report", str(run)])

    assert done.exit_code == 0, done.output
    assert f"-> {run / 'report.html'}" in done.output
    assert "1 judgment(s) missing (open 1), reported as not judged yet" in done.output
    assert (run / "judgments.jsonl").read_text().splitlines() == kept  # no judge was asked
    results = json.loads((run / "results.json").read_text())
    assert results["judgments_missing"] == {"open": 1} and results["errors"]["n"] == 0
    assert results["mcq"] == before["mcq"] and results["open_ended"]["n"] == before["open_ended"]["n"] - 1
    assert results["usage"]["wall_s"] == before["usage"]["wall_s"]  # the evals' time, kept
    assert results["frames"] == before["frames"] and before["frames"]["decoded"] > 0  # how frames were had
    assert RunFolder(run).scores()[DROPPED]["status"] == "unscored (not judged yet: open)"
    report = (run / "report.html").read_text()
    assert "1 judgment(s) missing</b> (open 1)" in report and (run / "samples/page-001.html").is_file()


def test_report_names_a_folder_that_is_no_run(tmp_path: Path):
    done = CliRunner().invoke(main, ["report", str(tmp_path)])
    assert done.exit_code != 0 and str(tmp_path) in done.output


def test_rescoring_keeps_the_wall_time_and_how_frames_were_had(tmp_path: Path):
    """`vqakit score` rewrites results.json too: the evals' wall time and the `frames` section
    (decoded, from the store) are the run's, not the rescoring's."""
    run = tmp_path / "run"
    with FakeServer(default="ok:Answer: B") as model:
        made = CliRunner().invoke(
            main,
            ["eval", "sample", "--model", f"openai-compatible:{model.url}#m", "--limit", "4",
             "--frames", "uniform:2", "--out", str(run)],
        )  # fmt: skip
    assert made.exit_code == 0, made.output
    before = json.loads((run / "results.json").read_text())
    assert before["frames"]["decoded"] > 0 and before["usage"]["wall_s"] > 0
    done = CliRunner().invoke(main, ["score", str(run)])
    assert done.exit_code == 0, done.output
    after = json.loads((run / "results.json").read_text())
    assert after["frames"] == before["frames"] and after["usage"]["wall_s"] == before["usage"]["wall_s"]
