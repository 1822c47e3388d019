"""Run folders are named after what the user gave: the benchmark folder and its card's version,
not the card's name; a reviewed version gets a new version; a refused resume says in words which
setting differs."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from vqakit.benchmarks import load_benchmark
from vqakit.cli import main
from vqakit.runner import EvalConfig, RunConfigError, default_run_folder, run_eval, run_name
from vqakit.studio._apply import reviewed_version

SAMPLE = load_benchmark("sample").root


def _copy(tmp_path: Path, name: str, version: str | None = None) -> Path:
    folder = tmp_path / name
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns("review", "*.lock"))
    if version is not None:
        card = yaml.safe_load((folder / "benchmark.yaml").read_text())
        card["version"] = version
        (folder / "benchmark.yaml").write_text(yaml.safe_dump(card, sort_keys=False))
    return folder


def _eval(cwd: Path, *arguments: str):
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, ["eval", *arguments])
    finally:
        os.chdir(old)


def test_the_folder_and_version_name_the_run_not_the_card_name(tmp_path: Path):
    mine = _copy(tmp_path, "mybench")  # its card still says `name: sample`
    assert run_name(load_benchmark(str(mine))) == "mybench-0.1.0"
    assert run_name(load_benchmark("sample")) == "sample-0.1.0"
    assert run_name(load_benchmark(str(_copy(tmp_path, "nextqa-1.2", "1.2")))) == "nextqa-1.2"
    assert default_run_folder(load_benchmark(str(mine)), "direct", "openai:gpt-4o") == Path(
        "runs/mybench-0.1.0-direct-openai_gpt-4o"
    )


def test_two_copies_of_one_benchmark_get_two_run_folders(tmp_path: Path):
    for name in ("first", "second"):
        _copy(tmp_path, name)
        result = _eval(tmp_path, name, "--method", "random", "--limit", "3")
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == [
        "first-0.1.0-random",
        "second-0.1.0-random",
    ]


def test_a_reviewed_version_gets_a_new_version_and_its_own_runs(tmp_path: Path):
    assert reviewed_version("0.1.0") == "0.1.0+review"
    assert reviewed_version("0.1.0+review") == "0.1.0+review.2"
    assert reviewed_version("0.1.0+review.2") == "0.1.0+review.3"
    source = _copy(tmp_path, "bench")
    assert _eval(tmp_path, "bench", "--method", "random", "--limit", "3").exit_code == 0
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        applied = CliRunner().invoke(
            main, ["review", "apply", str(source), "--policy", "all", "--out", "bench-r"]
        )
        again = CliRunner().invoke(
            main, ["review", "apply", "bench-r", "--policy", "all", "--out", "bench-r2"]
        )
    finally:
        os.chdir(old)
    assert applied.exit_code == 0 and again.exit_code == 0, applied.output + again.output
    assert yaml.safe_load((tmp_path / "bench-r2/benchmark.yaml").read_text())["version"] == "0.1.0+review.2"
    result = _eval(tmp_path, "bench-r", "--method", "random", "--limit", "3")
    assert result.exit_code == 0, result.output  # not refused: its runs have their own folder
    assert (tmp_path / "runs/bench-r-0.1.0_review-random/results.json").is_file()


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"frames": "uniform:2"}, "the frames sent (--frames): uniform:1 in the run, uniform:2 now"),
        ({"model_args": {"temperature": 0.5}}, "the model's generation setting temperature (--model-arg): "
         "none in the run, 0.5 now"),
        ({"seed": 7}, "the seed: 0 in the run, 7 now"),
        ({"method": "blind"}, "the method (--method): direct in the run, blind now"),
    ],
)  # fmt: skip
def test_a_refused_resume_names_the_setting_in_words(tmp_path: Path, change, said):
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(f'{{"sample_id": "{s.id}", "reply": "A"}}\n' for s in load_benchmark("sample").samples)
    )
    base = EvalConfig(bench="sample", model=f"replay:{replies}", frames="uniform:1", limit=2)
    run_eval(base, tmp_path / "run")
    with pytest.raises(RunConfigError) as refused:
        run_eval(base.model_copy(update=change), tmp_path / "run")
    message = str(refused.value)
    assert "What differs:" in message and f"  - {said}" in message
    assert "---" not in message and "+++" not in message  # words, not a raw diff


def test_another_benchmark_in_the_same_folder_is_said_as_such(tmp_path: Path):
    bench = _copy(tmp_path, "bench")
    run_eval(EvalConfig(bench=str(bench), method="random", limit=2), tmp_path / "run")
    (bench / "samples.jsonl").write_text((bench / "samples.jsonl").read_text().splitlines(keepends=True)[0])
    with pytest.raises(RunConfigError, match=r"the benchmark's files \(its samples, card or corpus changed"):
        run_eval(EvalConfig(bench=str(bench), method="random", limit=2), tmp_path / "run")
