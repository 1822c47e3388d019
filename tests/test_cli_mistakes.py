"""Every usage mistake exits 2 and says what would work: did-you-mean for methods, backends,
judges, group keys and presets, the spec forms that fit a bare model name, the keys the runs
have for `table --by`; and a `--judge` that a run never calls is a warning, not silence."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main


def _run(*arguments: str, cwd: Path | None = None):
    old = Path.cwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(arguments))
    finally:
        os.chdir(old)


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (["eval", "sample", "--method", "randm"], "unknown method 'randm'; did you mean 'random'?"),
        (["eval", "sample", "--model", "opena:gpt-4o"], "unknown model backend 'opena' in 'opena:gpt-4o'; "
         "did you mean 'openai'?"),
        (["eval", "sample", "--model", "gpt-4o"], "did you mean openai:gpt-4o?"),
        (["eval", "sample", "--model", "claude-sonnet-4-5"], "did you mean anthropic:claude-sonnet-4-5?"),
        (["eval", "sample", "--model", "Qwen/Qwen2.5-VL-7B-Instruct"],
         "did you mean openai-compatible:http://localhost:8000/v1#Qwen/Qwen2.5-VL-7B-Instruct or "
         "hf:Qwen/Qwen2.5-VL-7B-Instruct?"),
        (["eval", "sample", "--model", "qwen2.5vl:7b"],
         "did you mean openai-compatible:http://localhost:8000/v1#qwen2.5vl:7b?"),
        (["eval", "sample", "--method", "random", "--judge", "opn=replay:x.jsonl"],
         "unknown judge 'opn'; did you mean 'open'?"),
        (["eval", "sample", "--method", "random", "--judge-arg", "opn.temperature=0"],
         "--judge-arg for unknown judge opn; did you mean 'open'?"),
        (["eval", "sample", "--method", "random", "--group-by", "categroy"],
         "did you mean 'category'? its samples have: category, skills"),
        (["eval", "sample", "--method", "random", "--prompt", "mqc"], "did you mean 'mcq'?"),
        (["import", "videome", "x"], "No such command 'videome'; did you mean 'videomme'?"),
        (["build", "egofac"], "did you mean 'egofact'?"),
    ],
)  # fmt: skip
def test_a_mistake_exits_2_with_what_would_work(arguments, said, tmp_path: Path):
    result = _run(*arguments, cwd=tmp_path)
    assert result.exit_code == 2, result.output
    assert said in " ".join(result.output.split())
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runs")
    assert (
        _run("eval", "sample", "--method", "random", "--limit", "12", "--out", str(folder / "r")).exit_code
        == 0
    )
    return folder / "r"


def test_table_by_a_key_the_runs_lack_lists_those_they_have(runs: Path):
    result = _run("table", str(runs), "--by", "categroy")
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "none of the runs breaks its results down by it; did you mean 'category'?" in text
    assert "the runs have: category" in text
    result = _run("table", str(runs), "--by", "category", "--columns", "objekt")
    assert result.exit_code == 2 and "did you mean 'object'?" in result.output


def test_a_judge_a_run_never_calls_is_a_warning(tmp_path: Path):
    (tmp_path / "j.jsonl").write_text('{"sample_id": "none", "reply": "yes"}\n')
    result = _run("eval", "sample", "--method", "random", "--limit", "4", "--out", str(tmp_path / "run"),
                  "--judge", f"open=replay:{tmp_path / 'j.jsonl'}")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "warning: --judge open was not used by" in result.output
    assert "a baseline gives no replies to judge" in result.output
