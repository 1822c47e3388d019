"""Every "did nothing" is an error or a warning: a frame spec that samples no frame is refused
for a method that sends frames (exit 2); `vqakit frames --uniform 0` too; a label or build run
that produced nothing exits non-zero and says where the reasons are; method steps that failed
while the sample was still answered (rag's rewrite and keywords) are counted and shown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "docs/examples"


def test_uniform_zero_is_refused_unless_the_method_sends_no_video(tmp_path: Path):
    with FakeServer(default="ok:Answer: A") as server:
        model = f"openai-compatible:{server.url}#m"
        refused = CliRunner().invoke(
            main, ["eval", "sample", "--model", model, "--frames", "uniform:0", "--out", str(tmp_path / "a")]
        )
        assert refused.exit_code == 2
        assert "samples no frames, so method direct would send no video" in refused.output
        assert "--method blind" in refused.output and not (tmp_path / "a").exists()
        assert not server.requests
        blind = CliRunner().invoke(
            main,
            ["eval", "sample", "--model", model, "--method", "blind", "--frames", "uniform:0", "--limit", "2",
             "--out", str(tmp_path / "b")],
        )  # fmt: skip
    assert blind.exit_code == 0, blind.output


@pytest.mark.parametrize("spec", [["--uniform", "0"], ["--fps", "1", "--max", "0"], ["--at", ","]])
def test_frames_that_would_write_nothing_are_refused(spec, tmp_path: Path):
    result = CliRunner().invoke(main, ["frames", "sample:media/bikes.mp4", *spec, "--out", str(tmp_path)])
    assert result.exit_code == 2 and "wrote 0 frames" not in result.output
    assert not list(tmp_path.iterdir())


def test_a_label_run_with_a_broken_model_fails_naming_the_reasons(tmp_path: Path):
    ex = EXAMPLES / "movierecapsqa"
    bench = tmp_path / "mrqa"
    imported = CliRunner().invoke(
        main,
        ["import", "movierecapsqa", str(ex / "release"), "--recaps", str(ex / "media/recaps.csv"),
         "--movies", str(ex / "media/movies.csv"), "--subtitles", str(ex / "media/subtitles.csv"),
         "--out", str(bench)],
    )  # fmt: skip
    assert imported.exit_code == 0, imported.output
    with FakeServer(default="401") as server:
        result = CliRunner().invoke(
            main, ["label", "movierecapsqa", str(bench), "--llm", f"openai-compatible:{server.url}#broken"]
        )
    assert result.exit_code == 1
    assert "labelled 0 questions" in result.output
    assert f"8 question(s) got no labels; the reasons are above and in {bench / 'labels/drops.jsonl'}" in (
        " ".join(result.output.split())
    )
    drops = (bench / "labels/drops.jsonl").read_text().splitlines()
    assert len(drops) == 8 and all("auth" in json.loads(line)["reason"] for line in drops)


def test_a_build_that_keeps_nothing_says_where_the_reasons_are(tmp_path: Path):
    sys.path.insert(0, str(EXAMPLES.parents[1] / "scripts"))
    from make_example_videos import write_example_videos

    ex = EXAMPLES / "instructionbench"
    videos = tmp_path / "videos"
    write_example_videos("instructionbench", videos)
    with FakeServer(default="400") as server:
        spec = f"openai-compatible:{server.url}"
        result = CliRunner().invoke(
            main,
            ["build", "instructionbench", "--annotations", str(ex / "youcookii_annotations_build.json"),
             "--videos", str(videos), "--llm", f"{spec}#writer",
             "--checkers", f"{spec}#a,{spec}#b,{spec}#c", "--embedder", "none",
             "--out", str(tmp_path / "out")],
        )  # fmt: skip
    assert result.exit_code == 1
    said = " ".join(result.output.split())
    assert "nothing was built: no question survived" in said
    assert "2 clips: missing video x1 (yc_missing)" in said  # the video it skipped
    assert "3 generation: generation failed x2" in said
    assert f"{tmp_path / 'out/build/drops.jsonl'}" in said and "report.md" in said
    assert "no samples" not in said and not (tmp_path / "out/samples.jsonl").exists()


@pytest.mark.slow
def test_failed_method_steps_are_counted_and_shown(tmp_path: Path):
    """rag without a recorded rewrite or keywords reply answers from the question: each sample's
    failed steps are counted in results.json, on the eval line and in the report."""
    pytest.importorskip("sentence_transformers")
    bench = load_benchmark("sample")
    chosen = [s for s in bench.samples if s.is_mcq and s.metadata.hop == 1][:3]
    replies = tmp_path / "replies.jsonl"
    lines = [
        {"sample_id": f"{s.id}:caption:{clip}", "reply": "1. A hand."} for s in chosen for clip in bench.clips
    ]
    lines += [{"sample_id": s.id, "reply": json.dumps({"Answer": "A", "Explanation": "x"})} for s in chosen]
    replies.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ids = ",".join(s.id for s in chosen)
    subset = tmp_path / "subset"
    _copy_subset(bench, ids.split(","), subset)
    result = CliRunner().invoke(
        main,
        [
            "eval",
            str(subset),
            "--method",
            "rag",
            "--model",
            f"replay:{replies}",
            "--out",
            str(tmp_path / "run"),
        ],
    )
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "run/results.json").read_text())
    assert results["step_failures"] == {"keywords": 3, "rewrite": 3}
    assert "failed method steps, answered without them: keywords 3, rewrite 3" in result.output
    report = (tmp_path / "run/report.html").read_text()
    assert "method steps failed" in report and "rewrite 3" in report


def _copy_subset(bench, ids: list[str], out: Path) -> None:
    """The sample benchmark with only these samples (corpora and media linked as they are)."""
    import shutil

    shutil.copytree(bench.root, out, symlinks=False)
    kept = [
        line for line in (out / "samples.jsonl").read_text().splitlines() if json.loads(line)["id"] in ids
    ]
    (out / "samples.jsonl").write_text("\n".join(kept) + "\n")
