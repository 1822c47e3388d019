"""`vqakit review apply` writes a version that stands on its own: the studio's working state
(the annotation log, the review logs) is not carried into it (the review logs are kept under
history/ for provenance), a version that does not validate leaves nothing behind, and a decision
made before its sample changed (stale) is listed and applied only with --include-stale."""

from __future__ import annotations

import json
import shutil
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.benchmarks import check_benchmark, load_benchmark
from vqakit.cli import main
from vqakit.runner import benchmark_hash
from vqakit.schema import BenchmarkError
from vqakit.studio import ReviewStore, Studio, StudioSettings, apply_review
from vqakit.studio._annotate import AnnotationFolder, ChangeBody, annotatable
from vqakit.studio._review import DecisionBody

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
WORKBENCH = SAMPLE / "media/synthetic/workbench.mp4"


def decide(root: Path, person: str, sample_id: str, decision: str, **fields) -> None:
    benchmark = load_benchmark(root)
    sample = next(s for s in benchmark.samples if s.id == sample_id)
    body = DecisionBody(decision=decision, request_id=uuid.uuid4().hex, **fields)
    ReviewStore(root / "review", benchmark_hash(benchmark)).record(person, sample, body)


def copy_sample(tmp_path: Path) -> Path:
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)  # real copies: the tests change files of it
    return root


@pytest.fixture
def annotated(tmp_path) -> Path:
    """A folder of videos with two questions written in annotate mode."""
    root = tmp_path / "videos"
    root.mkdir()
    shutil.copy(WORKBENCH, root / "workbench.mp4")
    folder = AnnotationFolder(root)
    for number, question in ((1, "What appears during STEP 1?"), (2, "What moves after STEP 2?")):
        sample = {
            "id": f"wb-{number}",
            "question": question,
            "videos": [{"path": "workbench.mp4"}],
            "choices": ["A yellow bar", "A green dot"],
            "answer": 0,
        }
        body = ChangeBody(action="save", sample=sample, request_id=f"save-wb-{number}")
        folder.change("carol", f"wb-{number}", body)
    return root


def test_the_new_version_carries_no_working_state_and_keeps_the_review_logs_aside(tmp_path, annotated):
    decide(annotated, "alice", "wb-1", "edit", edit={"question": "What appears while STEP 1 is shown?"})
    decide(annotated, "alice", "wb-2", "drop", reason="ambiguous")
    out = tmp_path / "reviewed"
    outcome = apply_review(annotated, out, "any")
    reviewed, problems = check_benchmark(out)
    assert problems == [] and reviewed is not None
    assert [(s.id, s.question) for s in reviewed.samples] == [("wb-1", "What appears while STEP 1 is shown?")]
    # NEW is a benchmark, not a folder being annotated: an annotate save cannot rewrite its
    # samples.jsonl from the old log (which would undo the review)
    assert not (out / "annotate").exists() and not (out / "review").exists()
    assert not annotatable(out)
    with pytest.raises(ValueError, match="not written in the studio"):
        AnnotationFolder(out)
    assert Studio(StudioSettings(folders=[str(out)], runs=tmp_path / "runs")).workspaces[0].modes() == [
        "review",
        "answer",
    ]
    # the logs that made it are kept for the record, where nothing reads them as live state
    history = out / outcome.history
    assert outcome.history.startswith("history/")
    assert (history / "review/alice.jsonl").read_text() == (annotated / "review/alice.jsonl").read_text()
    assert (history / "annotate/changes.jsonl").read_text() == (
        annotated / "annotate/changes.jsonl"
    ).read_text()
    assert (history / "review/alice.jsonl").stat().st_ino != (annotated / "review/alice.jsonl").stat().st_ino
    assert f"`{outcome.history}/`" in (out / "changes.md").read_text()
    assert annotatable(annotated)  # the old folder is as it was


def test_a_version_that_does_not_validate_leaves_nothing_behind(tmp_path):
    root = copy_sample(tmp_path)
    decide(root, "alice", "ped-sign", "drop", reason="ambiguous")
    video = root / "media/thanks.mp4"
    good = video.read_bytes()
    video.unlink()
    video.write_bytes(b"not a video" * 100)  # loads, but the writer's media check fails
    out = tmp_path / "reviewed"
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(BenchmarkError) as failed:
        apply_review(root, out, "any")
    assert f"{root}/media/thanks.mp4: cannot open as a video" in str(failed.value)  # the file at fault
    assert ".staging" not in str(failed.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no NEW, no staging folder
    result = CliRunner().invoke(main, ["review", "apply", str(root), "--policy", "any", "--out", str(out)])
    assert result.exit_code == 1 and f"nothing written to {out}" in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    video.unlink()
    video.write_bytes(good)
    outcome = apply_review(root, out, "any")  # a rerun is not refused as "not empty"
    assert outcome.dropped == 1 and check_benchmark(out)[1] == []


def test_an_empty_out_folder_is_filled_all_at_once(tmp_path):
    root = copy_sample(tmp_path)
    out = tmp_path / "reviewed"
    out.mkdir()
    apply_review(root, out, "majority")
    assert check_benchmark(out)[1] == [] and not list(tmp_path.glob(".*staging"))


def test_stale_decisions_are_listed_and_applied_only_when_asked(tmp_path):
    root = copy_sample(tmp_path)
    decide(root, "alice", "ped-sign", "drop", reason="ambiguous", note="two signs")
    decide(root, "alice", "ped-tripod", "edit", edit={"category": "scene"})
    decide(root, "bob", "ped-vehicle", "drop", reason="blind")
    # a line of an older log: no sample digest, made on another version of the benchmark
    legacy = {
        "request_id": "legacy-0001",
        "sample_id": "ped-barrier",
        "person": "carol",
        "decision": "drop",
        "reason": "wrong-gold",
        "note": None,
        "edit": None,
        "benchmark_hash": "0123456789abcdef",
        "time": "2025-01-01T00:00:00.000+00:00",
    }
    (root / "review/carol.jsonl").write_text(json.dumps(legacy) + "\n")
    # then the benchmark changes: ped-sign's question is rewritten
    lines = (root / "samples.jsonl").read_text().splitlines()
    for number, line in enumerate(lines):
        record = json.loads(line)
        if record["id"] == "ped-sign":
            record["question"] = "Which sign is fixed to the lamp post?"
            lines[number] = json.dumps(record)
    (root / "samples.jsonl").write_text("\n".join(lines) + "\n")

    runner = CliRunner()
    out = tmp_path / "reviewed"
    result = runner.invoke(main, ["review", "apply", str(root), "--policy", "any", "--out", str(out)])
    assert result.exit_code == 0, result.output
    # decisions on samples that did not change still count, though the benchmark changed
    assert "45 samples kept (1 edited), 1 dropped" in result.output
    assert "2 stale decision(s), made before their sample last changed, not applied" in result.output
    assert "  `ped-barrier`: drop by carol (the gold answer is wrong), made 2025-01-01" in result.output
    assert "  `ped-sign`: drop by alice (ambiguous" in result.output
    kept = {s.id: s for s in load_benchmark(out).samples}
    assert {"ped-sign", "ped-barrier"} <= set(kept) and "ped-vehicle" not in kept
    assert kept["ped-tripod"].metadata.category == "scene"
    changes = (out / "changes.md").read_text()
    assert (
        "## Not applied: the sample changed after the decision (stale; --include-stale applies them) (2)"
        in (changes)
    )
    assert "- `ped-sign`: drop by alice (ambiguous: more than one option fits" in changes

    again = tmp_path / "reviewed-all"
    args = ["review", "apply", str(root), "--policy", "any", "--out", str(again), "--include-stale"]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "43 samples kept (1 edited), 3 dropped" in result.output
    assert "2 stale decision(s), made before their sample last changed, applied (--include-stale)" in (
        result.output
    )
    assert {"ped-sign", "ped-barrier", "ped-vehicle"}.isdisjoint(s.id for s in load_benchmark(again).samples)
    assert "## Applied although the sample changed after the decision (--include-stale) (2)" in (
        (again / "changes.md").read_text()
    )


def test_a_new_decision_records_the_digest_of_the_sample_it_was_made_on(tmp_path):
    from vqakit.studio._review import sample_digest

    root = copy_sample(tmp_path)
    decide(root, "alice", "ped-sign", "keep")
    (line,) = (root / "review/alice.jsonl").read_text().splitlines()
    sample = next(s for s in load_benchmark(root).samples if s.id == "ped-sign")
    assert json.loads(line)["sample_hash"] == sample_digest(sample)
