"""Everything a run needs is checked before its folder is written: a bad option is one plain line
(no Python class names), exit code 2, and nothing left behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.runner import EvalConfig, RunSetupError, check_run

REPLAY = "replay:{path}"


@pytest.fixture
def replies(tmp_path: Path) -> str:
    path = tmp_path / "replies.jsonl"
    path.write_text('{"sample_id": "x", "reply": "A"}\n')
    return f"replay:{path}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--frames", "bogus"], "--frames 'bogus': cannot read frame spec"),
        (["--frames", "fps:0"], "fps must be positive"),
        (["--frames", "at:-1"], "cannot read frame spec 'at:-1'"),
        (["--prompt", "nosuch"], "--prompt: unknown prompt 'nosuch'"),
        (["--prompt", "../../../etc/passwd.txt"], "is outside the benchmark folder"),
        (["--short-side", "-5"], "--short-side -5: Input should be greater than or equal to 16"),
        (["--method", "hints", "--hints", "boxx"], "unknown hint style ['boxx']"),
        (["--method", "direct", "--top-clips", "3"], "method direct has no option top_clips"),
        (["--method", "nosuch"], "unknown method 'nosuch'"),
        (["--judge", "nosuchjudge=replay:x.jsonl"], "unknown judge 'nosuchjudge'; known: "),
        (["--judge", "open=replay:missing.jsonl"], "judge open 'replay:missing.jsonl'"),
        (["--group-by", "nosuchkey"], "--group-by nosuchkey: no sample of sample has this metadata key"),
        (["--model-arg", "temperature=hot"], "--model-arg temperature: Input should be a valid number"),
        (["--model-arg", "nosuch=1"], "nosuch"),
    ],
)
def test_bad_options_stop_before_anything_is_written(
    tmp_path: Path, replies: str, args: list[str], message: str
):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["eval", "sample", "--model", replies, *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Error" not in result.output.replace("Error:", "") and "Traceback" not in result.output
    assert not out.exists()


def test_a_hub_model_fails_fast_offline(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(
        main, ["eval", "sample", "--model", "hf:nonexistent/model", "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 2 and "hf:nonexistent/model" in result.output
    assert not (tmp_path / "run").exists()


def test_a_method_without_its_extra_names_the_install_line(monkeypatch):
    from vqakit.benchmarks import load_benchmark
    from vqakit.methods import MethodSetupError

    monkeypatch.setattr("vqakit.methods._registry.has_extra", lambda extra: extra != "embed")
    with pytest.raises(
        MethodSetupError, match=r"method rag needs the embed extra: pip install 'vqakit\[embed\]'"
    ):
        check_run(EvalConfig(bench="sample", method="rag", model="replay:x"), load_benchmark("sample"))


def test_a_method_that_needs_a_model_says_so():
    from vqakit.benchmarks import load_benchmark

    with pytest.raises(RunSetupError, match="method direct needs --model"):
        check_run(EvalConfig(bench="sample"), load_benchmark("sample"))
