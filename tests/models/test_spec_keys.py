"""A model spec never carries a key: a spec with credentials in its URL, a key-like query parameter
or a known key value is refused where specs are parsed, before anything is written or sent, with
one line naming the variable to set instead (and never repeating the key)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from fake_server import FakeServer

from vqakit.cli import main
from vqakit.models import (
    Model,
    ModelSpecError,
    TextEmbedder,
    check_model_spec,
    check_text_embedder,
    parse_model_spec,
)
from vqakit.video import write_index_clip

KEY = "Zq7-not-a-real-key-4411"


@pytest.mark.parametrize(
    ("spec", "variable"),
    [
        (f"openai-compatible:http://user:{KEY}@127.0.0.1:8000/v1#m", "VQAKIT_API_KEY"),
        (f"openai-compatible:https://{KEY}@example.org/v1#m", "VQAKIT_API_KEY"),
        (f"openai-compatible:http://127.0.0.1:8000/v1?api_key={KEY}#m", "VQAKIT_API_BASIC_AUTH"),
        (f"openai-compatible:http://127.0.0.1:8000/v1?api-version=1&key={KEY}#m", "VQAKIT_API_KEY"),
        (f"openai-compatible:http://127.0.0.1:8000/v1#m?access_token={KEY}", "VQAKIT_API_KEY"),
        (f"openai:gpt-4o-mini?api_key={KEY}", "OPENAI_API_KEY"),
        (f"openai:gpt-4o-mini?temperature=0&x-api-key={KEY}", "OPENAI_API_KEY"),
        (f"anthropic:claude-sonnet-4-5?token={KEY}", "ANTHROPIC_API_KEY"),
        (f"gemini:gemini-2.5-pro?key={KEY}", "GEMINI_API_KEY or GOOGLE_API_KEY"),
        (f"openai:sk-proj-{KEY}", "OPENAI_API_KEY"),  # a key pasted where the model goes
    ],
)
def test_a_spec_with_a_key_is_refused_without_repeating_it(spec, variable):
    for parse in (parse_model_spec, check_model_spec):
        with pytest.raises(ModelSpecError) as caught:
            parse(spec)
        message = str(caught.value)
        assert "cannot carry a key" in message and variable in message, message
        assert KEY not in message and "\n" not in message
    with pytest.raises(ModelSpecError):
        Model(spec)


def test_a_known_key_value_anywhere_in_a_spec_is_refused(monkeypatch):
    monkeypatch.setenv("VQAKIT_API_KEY", KEY)
    with pytest.raises(ModelSpecError, match="the value of a key variable") as caught:
        parse_model_spec(f"openai-compatible:http://127.0.0.1:8000/{KEY}/v1#m")
    assert KEY not in str(caught.value)


@pytest.mark.parametrize(
    "spec",
    [
        f"openai-compatible:http://user:{KEY}@127.0.0.1:8000/v1#text-embedding-3-small",
        f"openai:text-embedding-3-small?api_key={KEY}",
        f"openai-compatible:http://127.0.0.1:8000/v1?token={KEY}#e5?dimensions=8",
        f"sentence-transformers:https://user:{KEY}@example.org/model",
    ],
)
def test_an_embedder_spec_with_a_key_is_refused(spec):
    with pytest.raises(ModelSpecError) as caught:
        check_text_embedder(spec)
    assert KEY not in str(caught.value)
    if not spec.startswith("sentence-transformers"):
        with pytest.raises(ModelSpecError):
            TextEmbedder(spec)


@pytest.mark.parametrize(
    "spec",
    [
        "openai-compatible:https://x.openai.azure.com/openai/deployments/d?api-version=2024-10-21#gpt-4o",
        "openai:o4-mini?max_tokens=8000&reasoning_effort=high",
        "openai-compatible:http://localhost:8000/v1#Qwen/Qwen3-8B?thinking_budget=0&thinking=false",
        "anthropic:claude-sonnet-4-5?thinking_budget=4000",
        "hf:HuggingFaceTB/SmolVLM2-256M-Video-Instruct",
        "replay:runs/a#b.jsonl",
    ],
)
def test_specs_without_a_key_are_untouched(spec):
    assert str(parse_model_spec(spec)) == spec


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("keybench")
    write_index_clip(root / "media/clip.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "keys", "version": "1", "license": "CC0-1.0", "description": "Key checks."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    sample = {
        "id": "q1",
        "videos": [{"path": "media/clip.mp4"}],
        "question": "What is shown?",
        "choices": ["a clip", "a photo"],
        "answer": 0,
    }
    (root / "samples.jsonl").write_text(json.dumps(sample) + "\n")
    return root


def _files_holding(folder: Path, secret: str) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


@pytest.mark.parametrize("role", ["--model", "--judge", "--fallback"])
def test_eval_refuses_a_key_in_any_model_spec_before_writing(role, bench, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(cache))
    with FakeServer() as server:
        good = f"openai-compatible:{server.url}#m"
        bad = f"openai-compatible:http://user:{KEY}@{server.url.removeprefix('http://')}#m"
        args = {
            "--model": ["--model", bad],
            "--judge": ["--model", good, "--judge", f"open={bad}"],
            "--fallback": ["--model", good, "--fallback", bad],
        }[role]
        out = tmp_path / "run"
        result = CliRunner().invoke(main, ["eval", str(bench), *args, "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert "cannot carry a key" in result.output and "VQAKIT_API_KEY" in result.output
    assert KEY not in result.output
    assert not out.exists() and server.requests == []
    assert not cache.exists() or _files_holding(cache, KEY) == []


def test_a_builder_refuses_a_key_in_its_model_specs(tmp_path, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path / "cache"))
    annotations = tmp_path / "steps.jsonl"
    annotations.write_text("")
    (tmp_path / "videos").mkdir()
    out = tmp_path / "built"
    bad = f"openai-compatible:http://user:{KEY}@127.0.0.1:9/v1#m"
    replays = [tmp_path / f"recorded{i}.jsonl" for i in range(4)]
    for path in replays:
        path.write_text("")
    good, checkers = f"replay:{replays[0]}", ",".join(f"replay:{path}" for path in replays[1:])
    inputs = ["--annotations", str(annotations), "--videos", str(tmp_path / "videos")]
    for llm, checking in ((bad, checkers), (good, f"{bad},{checkers}")):
        options = ["--llm", llm, "--checkers", checking, "--embedder", "none", "--out", str(out)]
        result = CliRunner().invoke(main, ["build", "instructionbench", *inputs, *options])
        assert result.exit_code == 2, result.output
        assert "cannot carry a key" in result.output and KEY not in result.output
        assert not out.exists()
