"""A run over a benchmark read as used (`SampleFile`) resumes and scores exactly as one held in
memory: the same resume counts, the same scores.jsonl, results.json and sample pages, byte for
byte (the offline random baseline: a real run, no model)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

import vqakit.schema._sample_stream as sample_stream
from vqakit.benchmarks import load_benchmark
from vqakit.runner import evaluate
from vqakit.runs import RunFolder, list_runs
from vqakit.schema import SampleFile
from vqakit.video import write_index_clip

COUNT = 60


def _bench(root: Path) -> Path:
    for name in ("a", "b", "c"):
        write_index_clip(root / "media" / f"{name}.mp4", seconds=2, width=64, height=48, gop=10)
    card = {
        "name": "lazy",
        "version": "1",
        "license": "CC0-1.0",
        "description": "Read as used.",
        "groups": ["topic"],
    }
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    lines = []
    for i in range(COUNT):
        sample = {
            "id": f"q{i:02d}",
            "videos": [{"path": f"media/{'abc'[i % 3]}.mp4", "start_s": (i % 4) * 0.25}],
            "question": f"Question {i}?",
            "answer": i % 3 if i % 7 else f"open answer {i}",
            "metadata": {"category": f"c{i % 2}", "topic": f"t{i % 5}"},
        }
        if i % 7:
            sample["choices"] = ["one", "two", "three"]
        lines.append(json.dumps(sample))
    (root / "samples.jsonl").write_text("\n".join(lines) + "\n")
    return root


def _run(bench: Path, out: Path) -> tuple[list, dict]:
    settings = {"bench": str(bench), "method": "random"}
    first = evaluate({**settings, "limit": 25}, out)[0]
    second = evaluate(settings, out)[0]
    counts = [(first.finished_before, first.ran), (second.finished_before, second.ran)]
    results = json.loads((out / "results.json").read_text())
    for key in ("usage", "frames"):
        results.pop(key, None)
    return counts, results


def test_a_run_read_as_used_resumes_and_scores_as_one_held_in_memory(tmp_path, monkeypatch):
    bench = _bench(tmp_path / "bench")
    held_counts, held = _run(bench, tmp_path / "held")
    monkeypatch.setattr(sample_stream, "RESIDENT_UP_TO", 10)
    assert isinstance(load_benchmark(str(bench)).samples, SampleFile)
    lazy_counts, lazy = _run(bench, tmp_path / "lazy")
    assert held_counts == lazy_counts == [(0, 25), (25, 35)]
    assert lazy == held and lazy["mcq"]["n"] + lazy["counts"]["not applicable"] == COUNT
    for name in ("scores.jsonl", "samples/page-001.html"):
        assert (tmp_path / "lazy" / name).read_bytes() == (tmp_path / "held" / name).read_bytes()
    lines = (tmp_path / "lazy" / "predictions.jsonl").read_text().splitlines()
    in_order = [json.loads(line)["sample_id"] for line in lines]
    assert list(RunFolder(tmp_path / "lazy").predictions()) == in_order
    assert {run.folder.name for run in list_runs(tmp_path)} == {"held", "lazy"}


def test_a_resumed_run_read_as_used_checks_each_prediction_line_in_its_one_pass(tmp_path, monkeypatch):
    """The resume reads predictions.jsonl once, checking every line as a whole prediction as it
    goes: a line that is JSON but no prediction is named with the damaged lines of the other
    logs in one message, and nothing of the run is written or asked."""
    import pytest

    from vqakit.files import BadLogLines
    from vqakit.runs import PredictionLog

    monkeypatch.setattr(sample_stream, "RESIDENT_UP_TO", 10)
    bench, out = _bench(tmp_path / "bench"), tmp_path / "run"
    evaluate({"bench": str(bench), "method": "random", "limit": 25}, out)
    predictions = out / "predictions.jsonl"
    lines = predictions.read_bytes().splitlines(keepends=True)
    lines[11] = b'{"sample_id": "q11", "method": "random", "choice": "A"}\n'  # JSON, not a prediction
    predictions.write_bytes(b"".join(lines))
    (out / "judgments.jsonl").write_bytes(b'{"kind": "open"}\n')
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    reads = []
    real_init = PredictionLog.__init__

    def counted(self, path, **options):
        reads.append(path.name)
        real_init(self, path, **options)

    monkeypatch.setattr(PredictionLog, "__init__", counted)
    with pytest.raises(BadLogLines) as refused:
        evaluate({"bench": str(bench), "method": "random"}, out)
    named = refused.value.named()
    assert [line.split(": ")[0].rsplit("/", 1)[-1] for line in named] == [
        "judgments.jsonl:1",
        "predictions.jsonl:12",
    ], named
    assert "choice: Input should be a valid integer" in named[1]
    assert reads == ["predictions.jsonl"]
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before
