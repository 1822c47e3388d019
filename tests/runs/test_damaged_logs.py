"""A damaged line of a run's logs is named, never a place where reading stops or a file is cut.

The issue's case first: a finished 60-sample run (30% right) with line 10 of predictions.jsonl
torn. Before, `vqakit report` printed a result "on 9 samples" with exit 0 and rewrote
results.json from them, and the same `vqakit eval` truncated the file at line 10 and asked the
model again for the 50 samples after it. Now every verb that reads the run refuses (exit 1,
naming FILE:LINE) and changes nothing, unless asked to set the line aside, where it is kept and
counted."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main

SAMPLES = 60


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def sixty(tmp_path_factory: pytest.TempPathFactory, media_dir: Path) -> tuple[Path, Path]:
    """A 60-sample MCQ benchmark and recorded replies, 18 of them right (30.0%)."""
    root = tmp_path_factory.mktemp("sixty")
    bench = root / "bench"
    (bench / "media").mkdir(parents=True)
    (bench / "media/thanks.mp4").write_bytes((media_dir / "thanks.mp4").read_bytes())
    (bench / "benchmark.yaml").write_text(
        "name: sixty\nversion: '1'\nlicense: CC0-1.0\ndescription: Sixty questions.\n"
        "protocol:\n  frames: uniform:2\n"
    )
    with open(bench / "samples.jsonl", "w") as samples, open(root / "replies.jsonl", "w") as replies:
        for i in range(SAMPLES):
            video = [{"path": "media/thanks.mp4"}]
            sample = {"id": f"q{i:02d}", "videos": video, "question": f"Question {i}?", "choices": ["a", "b"]}
            samples.write(json.dumps({**sample, "answer": 0}) + "\n")
            reply = "A" if i % 10 < 3 else "B"
            replies.write(json.dumps({"sample_id": f"q{i:02d}", "reply": reply}) + "\n")
    return bench, root / "replies.jsonl"


def invoke(*args: str) -> object:
    return CliRunner().invoke(main, [str(a) for a in args])


def eval_args(sixty: tuple[Path, Path], run: Path) -> list[str]:
    bench, replies = sixty
    return ["eval", str(bench), "--model", f"replay:{replies}", "--method", "blind", "--out", str(run)]


@pytest.fixture
def finished_run(sixty: tuple[Path, Path], tmp_path: Path) -> Path:
    run = tmp_path / "run"
    made = invoke(*eval_args(sixty, run))
    assert made.exit_code == 0, made.output
    assert "30.0%" in made.output and f"on {SAMPLES} samples" in made.output
    return run


def damage(path: Path, line: int, text: bytes) -> bytes:
    """Replace line `line` (1-based) of `path` with `text`; returns the file as it now is."""
    lines = path.read_bytes().split(b"\n")
    lines[line - 1] = text
    path.write_bytes(b"\n".join(lines))
    return path.read_bytes()


def test_a_torn_line_10_is_refused_by_every_reader_and_nothing_is_cut(finished_run, sixty):
    run = finished_run
    line = (run / "predictions.jsonl").read_bytes().split(b"\n")[9]
    damaged = damage(run / "predictions.jsonl", 10, line[:30])
    results, scores = (run / "results.json").read_bytes(), (run / "scores.jsonl").read_bytes()
    for verb in (["report", run], ["score", run], eval_args(sixty, run)):
        done = invoke(*verb)
        assert done.exit_code == 1, (verb, done.output)
        assert f"{run / 'predictions.jsonl'}:10: not JSON" in done.output, done.output
        assert "--set-aside-bad-lines" in done.output and "on 9 samples" not in done.output
        assert (run / "predictions.jsonl").read_bytes() == damaged  # not one line lost
        assert (run / "results.json").read_bytes() == results
        assert (run / "scores.jsonl").read_bytes() == scores
    for verb in (["table", run, "--by", "category"], ["export", run], ["compare", run, run]):
        done = invoke(*verb)
        assert done.exit_code == 1 and "predictions.jsonl:10" in done.output, (verb, done.output)

    aside = invoke("report", run, "--set-aside-bad-lines")
    assert aside.exit_code == 0, aside.output
    assert "set aside 1 unreadable line(s)" in aside.output and f"on {SAMPLES - 1} samples" in aside.output
    assert json.loads((run / "results.json").read_text())["set_aside"] == {"predictions.jsonl": 1}
    kept = json.loads((run / "predictions.set-aside.jsonl").read_text())
    assert kept["line"] == 10 and kept["text"].encode() == line[:30]
    assert len((run / "predictions.jsonl").read_bytes().splitlines()) == SAMPLES - 1

    resumed = invoke(*eval_args(sixty, run))  # the set-aside sample is asked again, the others kept
    assert resumed.exit_code == 0, resumed.output
    assert f"({SAMPLES - 1} resumed, 1 run)" in resumed.output and "30.0%" in resumed.output


@pytest.mark.parametrize("where", [1, 30, SAMPLES])
@pytest.mark.parametrize(
    "bad, reason",
    [
        (b"{}", "sample_id: Field required"),
        (b'{"sample_id": "q00", "method": "blind", "odd": 1}', "odd: Extra inputs are not permitted"),
        (b'{"sample_id": "q00", "method": "blind", "choice": "A"}', "choice: Input should be a valid"),
    ],
)
def test_any_unreadable_prediction_line_is_named_wherever_it_is(finished_run, where, bad, reason):
    run = finished_run
    damaged = damage(run / "predictions.jsonl", where, bad)
    done = invoke("report", run)
    assert done.exit_code == 1 and f"predictions.jsonl:{where}: {reason}" in done.output, done.output
    assert (run / "predictions.jsonl").read_bytes() == damaged


@pytest.fixture(scope="module")
def judged_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run of `sample` (9 samples, open-ended ones judged by a loopback judge)."""
    run = tmp_path_factory.mktemp("judged") / "run"
    with FakeServer(default="ok:Answer: B") as model, FakeServer(default="ok:yes - the same") as judge:
        made = invoke(
            "eval", "sample", "--model", f"openai-compatible:{model.url}#m", "--limit", "9", "--frames",
            "uniform:2", "--judge", f"open=openai-compatible:{judge.url}#j", "--out", run,
        )  # fmt: skip
    assert made.exit_code == 0, made.output
    return run


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_an_unreadable_judgment_line_is_named_and_set_aside_on_request(judged_run, tmp_path, where):
    run = tmp_path / "run"
    run.mkdir()
    for path in judged_run.iterdir():
        if path.is_file():
            (run / path.name).write_bytes(path.read_bytes())
    judgments = (run / "judgments.jsonl").read_bytes().splitlines()
    line = {"start": 1, "middle": len(judgments) // 2 + 1, "end": len(judgments)}[where]
    damaged = damage(run / "judgments.jsonl", line, b'{"kind": "open"}')
    done = invoke("report", run)
    assert done.exit_code == 1 and f"judgments.jsonl:{line}: sample_id: missing" in done.output, done.output
    assert (run / "judgments.jsonl").read_bytes() == damaged
    aside = invoke("report", run, "--set-aside-bad-lines")
    assert aside.exit_code == 0, aside.output
    assert json.loads((run / "results.json").read_text())["set_aside"] == {"judgments.jsonl": 1}
    assert "1 judgment(s) missing" in aside.output  # the sample whose judgment was set aside
    assert len((run / "judgments.jsonl").read_bytes().splitlines()) == len(judgments) - 1


def test_the_run_folder_reader_refuses_a_damaged_scores_file_and_says_how_to_rewrite_it(finished_run):
    run = finished_run
    damage(run / "scores.jsonl", 5, b"{oops")
    done = invoke("compare", run, run)
    assert done.exit_code == 1 and "scores.jsonl:5" in done.output and "vqakit report" in done.output
    assert invoke("report", run).exit_code == 0  # the logs are whole: report writes scores again
    assert invoke("compare", run, run).exit_code == 0
