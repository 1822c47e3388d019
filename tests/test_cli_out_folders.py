"""Nothing the user owns is deleted or replaced without being asked: every command that writes a
folder refuses an `--out` that exists and holds what it did not write, or that lies inside (or
holds) its input, with exit 2, one line saying what to do, and nothing written. One test per
command, on real inputs (the dataset examples, the test fixtures, the sample benchmark).

Before, `import table`, the presets, the builders and the other importers replaced an existing
folder's `media/` and `samples.jsonl` without a word (exit 0), `eval --out` wrote a run into any
folder (a benchmark's included), and the frame, hint, alignment and export writers wrote over
whatever files were there."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from integrity_checks import PRESET_EXAMPLES, snapshot, users_folder
from vqakit.cli import main
from vqakit.video import write_index_clip

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT / "docs/examples/datasets"
FIXTURES = ROOT / "tests/fixtures"
SAMPLE = ROOT / "src/vqakit/benchmarks/sample"


def closed_model() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"openai-compatible:http://127.0.0.1:{port}/v1#m"  # never reached: the refusal comes first


@pytest.fixture
def foreign(tmp_path: Path) -> Path:
    return users_folder(tmp_path / "mine")


def refused(args: list[str | Path], watched: Path, *, said: str = "--out") -> None:
    """The command exits 2 with one line naming --out, and `watched` is exactly as it was."""
    before = snapshot(watched)
    siblings = sorted(p.name for p in watched.parent.iterdir())
    done = CliRunner().invoke(main, [str(a) for a in args])
    assert done.exit_code == 2, done.output
    assert said in done.output and "Traceback" not in done.output, done.output
    assert snapshot(watched) == before  # nothing deleted, nothing replaced, nothing added
    assert sorted(p.name for p in watched.parent.iterdir()) == siblings  # no staging left beside


@pytest.fixture
def bench(tmp_path: Path) -> Path:
    folder = tmp_path / "bench"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return folder


# --- import table: the three cases, then what re-importing may do -----------------------


@pytest.fixture
def release(tmp_path: Path) -> Path:
    """The table example laid out as a user's release folder: the table, its mapping and their
    own media/ with a video no row names."""
    folder = tmp_path / "release"
    folder.mkdir()
    for name in ("questions.csv", "mapping.yaml"):
        shutil.copy(DATASETS / "table" / name, folder / name)
    shutil.copytree(DATASETS / "table/videos", folder / "media")
    (folder / "media/unused.mp4").write_bytes(b"a video of mine that no row names")
    return folder


def import_table(release: Path, out: Path, table: str = "questions.csv") -> list[str | Path]:
    return ["import", "table", release / table, "--map", release / "mapping.yaml",
            "--videos", release / "media", "--out", out]  # fmt: skip


def test_import_table_out_the_release_folder_itself(release):
    refused(import_table(release, release), release)


def test_import_table_with_a_typo_in_an_answer_keeps_the_source_video(release):
    text = (release / "questions.csv").read_text().splitlines()
    (release / "questions.csv").write_text("\n".join(line.replace(",B,", ",Q,") for line in text) + "\n")
    refused(import_table(release, release), release)  # before: the row left out, its video deleted


def test_import_table_out_an_unrelated_folder(release, foreign):
    refused(import_table(release, foreign), foreign)


def test_a_folder_the_importer_wrote_is_imported_again_and_the_users_files_are_kept(release, tmp_path):
    out = tmp_path / "bench"
    assert CliRunner().invoke(main, [str(a) for a in import_table(release, out)]).exit_code == 0
    (out / "media/my-notes.txt").write_text("mine")  # the user's file inside the import's media/
    (out / "review").mkdir()
    (out / "review/ann.jsonl").write_text("{}\n")  # and beside it
    again = CliRunner().invoke(main, [str(a) for a in import_table(release, out)])
    assert again.exit_code == 0, again.output
    assert (out / "media/my-notes.txt").read_text() == "mine" and (out / "review/ann.jsonl").is_file()
    (out / "media/kitchen.mp4").unlink()  # then a file of the user's where the import writes one
    (out / "media/kitchen.mp4").write_bytes(b"the user's own kitchen video")
    marker = (out / ".vqakit-output.json").read_text()
    (out / ".vqakit-output.json").write_text(marker.replace('"media/kitchen.mp4",', ""))
    refused(import_table(release, out), out, said="media/kitchen.mp4")


def test_another_importer_does_not_write_into_an_import_table_folder(release, tmp_path):
    out = tmp_path / "bench"
    assert CliRunner().invoke(main, [str(a) for a in import_table(release, out)]).exit_code == 0
    minerva = ["import", "minerva", FIXTURES / "minerva_ego_release_five_options.json"]
    refused([*minerva, "--videos", release / "media", "--out", out], out, said="vqakit import table")


# --- every other command that writes a folder ---------------------------------------------------


@pytest.mark.parametrize("preset", sorted(PRESET_EXAMPLES))
def test_import_preset(preset, tmp_path, foreign):
    example, folder, videos = PRESET_EXAMPLES[preset]
    shutil.copytree(DATASETS / example, tmp_path / "release")
    given = tmp_path / "release" / folder
    refused(["import", preset, given, "--videos", tmp_path / "release" / videos, "--out", foreign], foreign)
    refused(
        ["import", preset, given, "--videos", tmp_path / "release" / videos, "--out", given / "out"], given
    )


def test_import_minerva(tmp_path, foreign):
    (tmp_path / "videos").mkdir()
    release = FIXTURES / "minerva_ego_release_five_options.json"
    refused(["import", "minerva", release, "--videos", tmp_path / "videos", "--out", foreign], foreign)


def test_import_movierecapsqa(tmp_path, foreign):
    shutil.copytree(FIXTURES / "movierecapsqa/release", tmp_path / "release")
    (tmp_path / "recaps.csv").write_text("video_id,path\n")
    args = ["import", "movierecapsqa", tmp_path / "release", "--recaps", tmp_path / "recaps.csv"]
    refused([*args, "--out", foreign], foreign)
    refused([*args, "--out", tmp_path / "release/bench"], tmp_path / "release")


def test_build_egofact(tmp_path, foreign):
    write_index_clip(tmp_path / "videos/a.mp4", seconds=4, fps=2, width=64, height=48, gop=4)
    (tmp_path / "events.jsonl").write_text('{"video": "a.mp4", "time_s": 1.0, "text": "C turns the tap"}\n')
    (tmp_path / "passages.jsonl").write_text('{"id": "p1", "title": "Taps", "text": "How a tap works."}\n')
    args = ["build", "egofact", "--videos", tmp_path / "videos", "--events", tmp_path / "events.jsonl",
            "--passages", tmp_path / "passages.jsonl", "--llm", closed_model()]  # fmt: skip
    refused([*args, "--out", foreign], foreign)
    refused([*args, "--out", tmp_path / "videos/bench"], tmp_path / "videos")


def test_build_instructionbench(tmp_path, foreign):
    build = FIXTURES / "instructionbench/build"
    (tmp_path / "videos").mkdir()
    args = ["build", "instructionbench", "--annotations", build / "youcookii_annotations_build.json",
            "--videos", tmp_path / "videos", "--llm", closed_model(),
            "--checkers", ",".join(closed_model() for _ in range(3))]  # fmt: skip
    refused([*args, "--out", foreign], foreign)


def test_build_movierecapsqa(tmp_path, foreign, media_dir):
    build = FIXTURES / "movierecapsqa/build"
    args = ["build", "movierecapsqa", "--recap", media_dir / "bikes.mp4",
            "--transcript", build / "street_recap.srt", "--llm", closed_model()]  # fmt: skip
    refused([*args, "--out", foreign], foreign)


def test_eval(bench, foreign, tmp_path):
    args = ["eval", bench, "--method", "random", "--limit", "2", "--out"]
    refused([*args, foreign], foreign)
    refused([*args, bench], bench)  # a benchmark folder is no run folder
    refused([*args, bench / "runs/r1"], bench)  # nor is a folder inside it
    other = tmp_path / "other-bench"
    shutil.copytree(bench, other)
    refused([*args, other], other, said="is a benchmark folder")
    assert CliRunner().invoke(main, [*map(str, args), str(tmp_path / "run")]).exit_code == 0
    again = CliRunner().invoke(main, [*map(str, args), str(tmp_path / "run")])  # a run folder: resumed
    assert again.exit_code == 0 and "(2 resumed, 0 run)" in again.output, again.output


def test_sweep(bench, foreign):
    args = ["sweep", bench, "--model", closed_model(), "--method", "blind", "--prompt", "mcq,mcq_reasoning"]
    refused([*args, "--out", foreign], foreign)


def test_import_movierecapsqa_answers(tmp_path, foreign):
    answers = FIXTURES / "movierecapsqa/official/answers.csv"
    refused(["import", "movierecapsqa-answers", answers, "--bench", "sample", "--out", foreign], foreign)


def test_export_bench(bench, foreign):
    pytest.importorskip("pyarrow")
    refused(["export-bench", bench, "--format", "hf", "--out", foreign], foreign)
    refused(["export-bench", bench, "--format", "lmms-eval", "--out", bench / "export"], bench)


def test_review_apply(bench, foreign):
    refused(["review", "apply", bench, "--policy", "any", "--out", foreign], foreign)
    refused(["review", "apply", bench, "--policy", "any", "--out", bench / "reviewed"], bench)


def test_frames(foreign, media_dir, tmp_path):
    refused(["frames", media_dir / "bikes.mp4", "--uniform", "2", "--out", foreign], foreign)
    done = CliRunner().invoke(
        main, ["frames", str(media_dir / "bikes.mp4"), "--uniform", "2", "--out", str(tmp_path / "f")]
    )
    assert done.exit_code == 0, done.output
    again = CliRunner().invoke(
        main, ["frames", str(media_dir / "bikes.mp4"), "--uniform", "3", "--out", str(tmp_path / "f")]
    )
    assert again.exit_code == 0, again.output  # its own folder: written again


def test_hints(bench, foreign):
    refused(["hints", "--bench", bench, "--sample", "wb-circle-motion", "--out", foreign], foreign)


def test_align(foreign, media_dir):
    videos = [media_dir / "bikes.mp4", media_dir / "world.mp4"]
    refused(["align", *videos, "--image-embedder", "clip:nowhere", "--out", foreign], foreign)
