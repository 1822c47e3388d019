"""A method faster than the disk cannot pile predictions up in memory: at most `RECORD_BACKLOG`
wait to be written, and when writing fails the run stops asking the method (the offline random
baseline, a real run; the log's writer is slowed down or broken)."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
import yaml

import vqakit.methods._registry as method_registry
import vqakit.runner._engines as engines
from vqakit.methods import get_method
from vqakit.runner import RunInterrupted, evaluate
from vqakit.runs import PredictionLog
from vqakit.video import write_index_clip

COUNT = 3000
BACKLOG = 64


def _bench(root: Path) -> Path:
    write_index_clip(root / "media" / "a.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "backlog", "version": "1", "license": "CC0-1.0", "description": "Fast answers."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    lines = [
        json.dumps(
            {
                "id": f"q{i:04d}",
                "videos": [{"path": "media/a.mp4"}],
                "question": f"Question {i}?",
                "choices": ["one", "two", "three"],
                "answer": i % 3,
            }
        )
        for i in range(COUNT)
    ]
    (root / "samples.jsonl").write_text("\n".join(lines) + "\n")
    return root


@pytest.fixture
def counted_random(monkeypatch) -> list[str]:
    """The random baseline, counting the samples it is asked about."""
    asked: list[str] = []
    random = get_method("random")

    async def run(sample, context):
        asked.append(sample.id)
        return await random.run(sample, context)

    monkeypatch.setitem(method_registry._METHODS, "random", dataclasses.replace(random, run=run))
    return asked


def test_predictions_waiting_to_be_written_stay_under_the_backlog(tmp_path, monkeypatch, counted_random):
    monkeypatch.setattr(engines, "RECORD_BACKLOG", BACKLOG)
    append_many = PredictionLog.append_many
    batches: list[int] = []

    def slow(self, predictions):  # a disk far slower than the method
        batches.append(len(predictions))
        time.sleep(0.02)
        return append_many(self, predictions)

    monkeypatch.setattr(PredictionLog, "append_many", slow)
    out = tmp_path / "run"
    outcome = evaluate({"bench": str(_bench(tmp_path / "bench")), "method": "random"}, out)[0]
    assert outcome.ran == COUNT
    lines = [json.loads(line) for line in (out / "predictions.jsonl").read_text().splitlines()]
    assert sorted(line["sample_id"] for line in lines) == sorted(f"q{i:04d}" for i in range(COUNT))
    assert sorted(counted_random) == sorted(f"q{i:04d}" for i in range(COUNT))
    # the workers waited for the writer: no batch holds more than the backlog (without the bound
    # each batch is all the method answered while the one before was written, and grows)
    assert max(batches) <= BACKLOG, batches
    assert len(batches) >= COUNT // BACKLOG


def test_a_writer_that_fails_stops_the_method_and_keeps_what_was_written(
    tmp_path, monkeypatch, counted_random
):
    monkeypatch.setattr(engines, "RECORD_BACKLOG", BACKLOG)
    append_many = PredictionLog.append_many
    calls = []
    lock = threading.Lock()

    def failing(self, predictions):
        with lock:
            calls.append(len(predictions))
            if len(calls) == 3:
                raise OSError(28, "No space left on device")
        time.sleep(0.02)
        return append_many(self, predictions)

    monkeypatch.setattr(PredictionLog, "append_many", failing)
    out = tmp_path / "run"
    with pytest.raises(OSError, match="No space left on device"):
        evaluate({"bench": str(_bench(tmp_path / "bench")), "method": "random"}, out)
    written = (out / "predictions.jsonl").read_text().splitlines()
    assert len(written) == calls[0] + calls[1]  # the two batches written before it failed stay
    # the method stopped soon after: at most the backlog, a queue of samples and one answer a
    # worker beyond what was handed to the writer
    assert len(counted_random) <= sum(calls) + BACKLOG + 3 * 16, (len(counted_random), calls)
    assert len(counted_random) < COUNT


def test_a_run_stopped_while_workers_wait_for_the_writer_keeps_their_answers(tmp_path, monkeypatch):
    """Ctrl-C while the backlog is full: the workers waiting for room are cancelled, and what
    they hold (answered, not yet queued) is written with the last batch."""
    monkeypatch.setattr(engines, "RECORD_BACKLOG", 1)  # room for 2 x 4 workers
    answered: list[str] = []
    random = get_method("random")

    async def run(sample, context):
        prediction = await random.run(sample, context)
        answered.append(sample.id)  # the method answered: from here the answer must be kept
        return prediction

    monkeypatch.setitem(method_registry._METHODS, "random", dataclasses.replace(random, run=run))
    append_many = PredictionLog.append_many
    calls = []

    def slow(self, predictions):
        calls.append(len(predictions))
        if len(calls) == 3:  # the backlog has been full for a while: workers wait for room
            os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)  # far slower than the method and the samples file
        return append_many(self, predictions)

    monkeypatch.setattr(PredictionLog, "append_many", slow)
    out = tmp_path / "run"
    # Ctrl-C as on a terminal: a suite started in the background by a non-interactive shell
    # (`.ci/run ... &`) has SIGINT ignored, and asyncio.run cancels its task on SIGINT only while
    # Python's default handler is in place
    earlier = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(RunInterrupted):
            evaluate({"bench": str(_bench(tmp_path / "bench")), "method": "random", "concurrency": 4}, out)
    finally:
        signal.signal(signal.SIGINT, earlier)
    written = {json.loads(line)["sample_id"] for line in (out / "predictions.jsonl").read_text().splitlines()}
    assert len(answered) < COUNT
    assert set(answered) <= written, sorted(set(answered) - written)[:10]
    assert len(written) == len(answered)
