"""The small things a new user hits in the first hour, each checked: "did you mean" for a
mistyped benchmark or prompt (exit 2, public prompts only), `vqakit runs` with model and frames
columns and whole paths, `stats` writing beside the benchmark (or to stdout), frame labels with
tenths where frames are under a second apart (and one label per thumbnail), frames never
enlarged unless asked, the wall time after a resume with nothing to run, the "Chosen letters"
table saying what its `all` row counts, a baseline's report header, and the README."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from fake_server import FakeServer
from PIL import Image

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.models import Frames, Text, frame_clocks
from vqakit.models._messages import as_timed_images
from vqakit.runner import EvalConfig, run_eval

ROOT = Path(__file__).resolve().parents[1]


def one_sample_bench(tmp_path: Path, sample_id: str) -> Path:
    """The shipped sample benchmark with only one of its samples."""
    out = tmp_path / f"bench-{sample_id}"
    shutil.copytree(load_benchmark("sample").root, out)
    lines = (out / "samples.jsonl").read_text().splitlines()
    (out / "samples.jsonl").write_text(
        "".join(line + "\n" for line in lines if json.loads(line)["id"] == sample_id)
    )
    return out


def test_a_mistyped_benchmark_is_a_usage_error_with_a_suggestion(tmp_path: Path, monkeypatch):
    result = CliRunner().invoke(main, ["eval", "sampel"])
    assert result.exit_code == 2
    assert "did you mean 'sample'?" in result.output and ":0: -:" not in result.output
    shutil.copytree(load_benchmark("sample").root, tmp_path / "kitchen-bench")
    monkeypatch.chdir(tmp_path)
    local = CliRunner().invoke(main, ["validate", "kitchen-bnech"])
    assert local.exit_code == 2 and "did you mean 'kitchen-bench'?" in local.output


def test_a_mistyped_prompt_suggests_the_public_prompt_only(tmp_path: Path):
    result = CliRunner().invoke(main, ["eval", "sample", "--method", "random", "--prompt", "mcq_reasonin"])
    assert result.exit_code == 2
    assert "did you mean 'mcq_reasoning'?" in result.output
    assert "mcq_numbered" in result.output and "open_short" in result.output
    for internal in ("structured_repair", "rag_rewrite", "mr_factuality", "build_caption", "judge_open"):
        assert internal not in result.output


def test_runs_lists_model_and_frames_and_whole_paths(tmp_path: Path):
    deep = tmp_path / ("a-rather-long-folder-name-" * 3) / "sample-direct-with-a-long-name"
    with FakeServer(default="ok:Answer: A") as server:
        run_eval(
            EvalConfig(
                bench="sample", model=f"openai-compatible:{server.url}#tiny", frames="uniform:2", limit=2
            ),
            deep,
        )
    run_eval(EvalConfig(bench="sample", method="random", limit=2), tmp_path / "random")
    lines = CliRunner().invoke(main, ["runs", str(tmp_path)]).output.splitlines()
    assert lines[0].split()[:5] == ["updated", "method", "model", "frames", "errors"]
    direct = next(line for line in lines if "direct" in line)
    assert f"openai-compatible:{server.url}#tiny" in direct and "uniform:2" in direct
    assert direct.endswith(str(deep))  # the whole path, never cut from the left
    baseline = next(line for line in lines if " random " in line)
    assert re.search(r"random\s+-\s+-\s+0", baseline)  # no model, no frames sent


def test_stats_writes_beside_the_benchmark_or_to_stdout(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bench = tmp_path / "mine"
    shutil.copytree(load_benchmark("sample").root, bench)
    result = CliRunner().invoke(main, ["stats", str(bench), "--no-media"])
    assert result.exit_code == 0 and (bench / "stats.json").is_file()
    shipped = CliRunner().invoke(main, ["stats", "sample", "--no-media"])
    assert shipped.exit_code == 0 and json.loads(shipped.stdout)["questions"]["n"] == 46
    assert "46 questions" in shipped.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]  # nothing in the current folder


def test_frame_labels_have_tenths_where_frames_are_close():
    assert frame_clocks([1.0, 3.0, 5.0]) == ["[00:01]", "[00:03]", "[00:05]"]
    five_second_clip = [0.3125, 0.9375, 1.5625, 2.1875]  # uniform:8 of a 5 s clip, the first four
    assert frame_clocks(five_second_clip) == ["[00:00.3]", "[00:00.9]", "[00:01.6]", "[00:02.2]"]
    assert len(set(frame_clocks([0.02, 0.06, 0.1]))) == 3  # hundredths when tenths would collide
    image = __import__("numpy").zeros((4, 4, 3), "uint8")
    sent = as_timed_images((Frames((image, image), (0.3125, 0.9375)),))
    assert [part.text for part in sent if isinstance(part, Text)] == ["[00:00.3]", "[00:00.9]"]


def test_frames_are_never_enlarged_unless_asked(tmp_path: Path):
    """bikes.mp4 is 640x272: the card's short side of 448 used to send it as 768x326."""
    bench = one_sample_bench(tmp_path, "bikes-roof-sign")
    sizes = {}
    for name, extra in (("default", {}), ("upscale", {"upscale": True})):
        with FakeServer(default="ok:Answer: A") as server:
            run_eval(
                EvalConfig(
                    bench=str(bench), model=f"openai-compatible:{server.url}#m", frames="uniform:1", **extra
                ),
                tmp_path / name,
            )
        content = server.requests[0]["body"]["messages"][-1]["content"]
        url = next(part["image_url"]["url"] for part in content if part["type"] == "image_url")
        sizes[name] = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).size
    assert sizes["default"] == (640, 272)
    assert sizes["upscale"] == (768, 326)  # 1054x448 asked for, then the API's 768 cap
    kept = CliRunner().invoke(
        main,
        [
            "frames",
            "sample:media/bikes.mp4",
            "--at",
            "1",
            "--short-side",
            "448",
            "--out",
            str(tmp_path / "f"),
        ],
    )
    assert kept.exit_code == 0 and Image.open(next((tmp_path / "f").glob("*.jpg"))).size == (640, 272)


def test_thumbnails_have_one_label_each(tmp_path: Path):
    bench = one_sample_bench(tmp_path, "bikes-roof-sign")
    with FakeServer(default="ok:Answer: A") as server:
        run_eval(
            EvalConfig(bench=str(bench), model=f"openai-compatible:{server.url}#m", frames="uniform:16"),
            tmp_path / "r",
        )
    page = (tmp_path / "r/samples/page-001.html").read_text()
    times = re.search(r'<div class="times">(.*?)</div>', page).group(1)
    labels = re.findall(r"<span>(.*?)</span>", times)
    assert len(labels) == 16 and labels[:2] == ["[00:00.3]", "[00:00.9]"]  # 0.625 s apart: tenths
    assert 'class="box"' in page  # labels share the strip's width, one column per thumbnail


def test_wall_time_is_kept_after_a_resume_with_nothing_to_run(tmp_path: Path):
    first = run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "run")
    again = run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "run")
    assert again.ran == 0 and first.results["usage"]["wall_s"] > 0
    assert again.results["usage"]["wall_s"] == first.results["usage"]["wall_s"]


def test_chosen_letters_say_what_their_all_row_counts(tmp_path: Path):
    run = run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "run")
    counted = sum(run.results["letters_by_outcome"]["all"].values())
    answered = run.results["counts"]["answered"]
    assert counted < answered  # only EgoFact's questions have a family
    report = (tmp_path / "run/report.html").read_text()
    assert f"over the {counted} of {answered} answered samples that have an EgoFact question family" in report
    assert "<td>all (with a family)</td>" in report


def test_a_baseline_report_names_no_frames_or_prompt_it_never_used(tmp_path: Path):
    run_eval(EvalConfig(bench="sample", method="random"), tmp_path / "run")
    report = (tmp_path / "run/report.html").read_text()
    header = re.search(r'<div class="meta">(.*?)</div>', report).group(1)
    assert "no video, no model" in header and "uniform:16" not in header and "prompt" not in header


def test_the_docs_list_rank_and_the_readme_says_how_to_avoid_a_cuda_torch():
    readme = (ROOT / "README.md").read_text()
    commands = (ROOT / "docs/commands.md").read_text()
    assert re.search(r"^### `vqakit rank RUN\.\.\. --judges", commands, re.MULTILINE)
    assert "download.pytorch.org/whl/cpu" in readme and "CUDA build of torch" in readme
    assert "## What the numbers mean" in (ROOT / "docs/evaluate.md").read_text()
    assert "(docs/evaluate.md#what-the-numbers-mean)" in readme


@pytest.mark.parametrize("verb", ["eval", "frames", "sweep"])
def test_short_side_help_says_it_never_enlarges(verb):
    text = CliRunner().invoke(main, [verb, "--help"]).output
    assert "--upscale" in text
