"""Annotate mode without a browser: the live checks of a draft, saves and deletes written to
the append-only change log, samples.jsonl and a card written from it, and a benchmark the
studio did not write left alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vqakit.benchmarks import check_benchmark
from vqakit.studio._annotate import AnnotateError, AnnotationFolder, ChangeBody

WORKBENCH = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample/media/synthetic/workbench.mp4"
BAR = "bar-15d687a61f95866e"


@pytest.fixture
def folder(tmp_path) -> AnnotationFolder:
    root = tmp_path / "videos"
    (root / "clips").mkdir(parents=True)
    shutil.copy(WORKBENCH, root / "clips/workbench.mp4")
    (root / "notes.txt").write_text("not a video")
    return AnnotationFolder(root)


def draft(**changes) -> dict:
    found = {
        "id": "wb-1",
        "question": "What appears during STEP 1?",
        "videos": [{"path": "clips/workbench.mp4"}],
        "choices": ["A yellow bar", "A green dot"],
        "answer": 0,
        "reasoning": f"1. STEP 1 is shown from 00:00 to 00:03.\n2. The bar {BAR} appears at 00:02.",
        "objects": [
            {
                "id": BAR,
                "label": "bar",
                "points": [
                    {"time_s": 2.0, "box": [315, 134, 345, 146]},
                    {"time_s": 3.0, "box": [315, 134, 345, 146]},
                ],
            }
        ],
    }
    found.update(changes)
    return found


def test_a_good_draft_passes_and_problems_are_named(folder):
    assert folder.videos() == ["clips/workbench.mp4"]
    good = folder.check_draft(draft())
    assert good.problems == [] and good.warnings == []
    checks = {
        "videos.0.path": draft(videos=[{"path": "notes.txt"}]),
        "answer": draft(answer=5),
        "after the end": draft(reasoning=f"1. The bar {BAR} appears at 00:40."),
        "outside": draft(
            objects=[{**draft()["objects"][0], "points": [{"time_s": 2.0, "box": [300, 100, 900, 140]}]}]
        ),
        "must look like name-<16": draft(objects=[{**draft()["objects"][0], "id": "bar-123"}]),
    }
    for expected, bad in checks.items():
        found = folder.check_draft(bad)
        assert any(expected in problem for problem in found.problems), (expected, found.problems)
    named_only = folder.check_draft(draft(objects=[]))
    assert named_only.problems == [] and named_only.warnings == [
        f"reasoning: {BAR} is named in the trace but has no box"
    ]
    boxed_only = folder.check_draft(draft(reasoning="1. The bar appears at 00:02."))
    assert any("has boxes but is not named" in w for w in boxed_only.warnings)
    assert "reasoning: the trace names no object" in boxed_only.warnings


def test_saves_and_deletes_become_the_samples_of_a_valid_benchmark(folder):
    change = ChangeBody(action="save", sample=draft(), request_id="save-00001")
    record, written = folder.change("carol", "wb-1", change)
    assert written and record["person"] == "carol"
    assert folder.change("carol", "wb-1", change)[1] is False  # resent: written once
    second = draft(question="What appears after STEP 1?", objects=[], reasoning=None)
    folder.change("dave", "wb-2", ChangeBody(sample=second, request_id="save-00002"))
    folder.change("carol", "wb-1", ChangeBody(sample=draft(answer=1), request_id="save-00003"))
    samples = [json.loads(line) for line in (folder.root / "samples.jsonl").read_text().splitlines()]
    assert [(s["id"], s["answer"]) for s in samples] == [("wb-1", 1), ("wb-2", 0)]
    bench, problems = check_benchmark(folder.root)
    assert problems == [] and bench.card.name == "videos" and len(bench.samples) == 2
    assert bench.samples[0].objects[0].points[1].time_s == 3.0
    folder.change("dave", "wb-2", ChangeBody(action="delete", request_id="delete-0001"))
    assert [s["id"] for s in folder.samples()] == ["wb-1"]
    log = (folder.root / "annotate/changes.jsonl").read_text().splitlines()
    assert len(log) == 4  # every save and delete, nothing rewritten
    with pytest.raises(AnnotateError, match="no sample"):
        folder.change("dave", "wb-9", ChangeBody(action="delete", request_id="delete-0002"))
    with pytest.raises(AnnotateError, match="answer"):
        folder.change("dave", "wb-3", ChangeBody(sample=draft(answer=7), request_id="save-00004"))
    assert folder.next_id("clips/workbench.mp4") == "workbench-q1"


def test_a_benchmark_the_studio_did_not_write_is_not_annotated(tmp_path):
    root = tmp_path / "bench"
    root.mkdir()
    (root / "samples.jsonl").write_text("")
    with pytest.raises(ValueError, match="not written in the studio"):
        AnnotationFolder(root)
