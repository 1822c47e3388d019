"""The run-folder reader: what it reads, and that reading never changes a file (a line a kill
cut short is left for the writer to repair)."""

from __future__ import annotations

import json

import pytest

from vqakit.runner import EvalConfig, run_eval
from vqakit.runs import PredictionLog, RunFolder, RunFolderError
from vqakit.schema import Prediction


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs") / "random"
    run_eval(EvalConfig(bench="sample", method="random", limit=6), folder)
    return folder


def test_reads_every_file(run):
    folder = RunFolder(run)
    assert folder.config["method"] == "random" and folder.config["method_args"] == {}
    assert set(folder.predictions()) == set(folder.scores()) and len(folder.predictions()) == 6
    assert folder.results["overall"]["n"] == len([r for r in folder.score_rows() if r["correct"] is not None])
    assert "no video" in folder.manifest["shown"] and folder.judgments() == {}
    assert folder.manifest["frames_sent"] is None  # a baseline sends no frames


def test_reading_leaves_a_cut_line_alone_and_the_writer_repairs_it(run, tmp_path):
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("config.yaml", "predictions.jsonl"):
        (copy / name).write_bytes((run / name).read_bytes())
    with open(copy / "predictions.jsonl", "a") as handle:
        handle.write('{"sample_id": "cut-sho')
    raw = (copy / "predictions.jsonl").read_bytes()
    assert len(RunFolder(copy).predictions()) == 6
    assert (copy / "predictions.jsonl").read_bytes() == raw
    log = PredictionLog(copy / "predictions.jsonl")
    assert len(log.finished) == 6 and (copy / "predictions.jsonl").read_bytes() == raw  # opened only
    log.append(Prediction(sample_id="next", method="random", choice=0))  # the next append removes it
    log.close()
    lines = (copy / "predictions.jsonl").read_bytes().splitlines(keepends=True)
    assert b"cut-sho" not in lines[-2] and b'"next"' in lines[-1] and lines[-1].endswith(b"}\n")
    assert b"".join(lines[:-1]) == raw[: raw.rindex(b"\n") + 1]  # every complete line kept as it was


def test_not_a_run_folder(tmp_path):
    with pytest.raises(RunFolderError, match="not a run folder"):
        RunFolder(tmp_path)
    (tmp_path / "config.yaml").write_text("- a list\n")
    with pytest.raises(RunFolderError, match="expected a mapping"):
        _ = RunFolder(tmp_path).config


def test_judgments_group_by_sample_and_kind(tmp_path):
    (tmp_path / "config.yaml").write_text("bench: sample\n")
    records = [
        {"sample_id": "a", "kind": "open", "raw": None, "error": "server: scripted 500"},
        {"sample_id": "a", "kind": "rubric", "raw": "[...]", "error": None},
        {"sample_id": "a", "kind": "open", "raw": "yes", "error": None},  # the retry supersedes the error
    ]
    (tmp_path / "judgments.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    grouped = RunFolder(tmp_path).judgments()
    assert set(grouped["a"]) == {"open", "rubric"} and grouped["a"]["open"]["raw"] == "yes"
