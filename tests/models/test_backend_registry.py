"""Model backends register like judges and methods: a toy backend registered from test code alone
(`toy_backend.py`, run in a subprocess so its registration stays out of this process) is run end
to end through `vqakit eval`, and the example of docs/architecture.md is installed as a package
with a `vqakit.backends` entry point and found without any import of ours."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from vqakit.models import SPEC_FORMS, backends, register_backend
from vqakit.video import write_index_clip

TOY = Path(__file__).with_name("toy_backend.py")
ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs/architecture.md"


def vqakit(
    *args: str, cwd: Path, script: Path | None = None, path: Path | None = None
) -> subprocess.CompletedProcess:
    """`vqakit ARGS` in a new process: through `script` (which registers a backend first), or
    with `path` put before the installed packages."""
    command = [sys.executable, str(script)] if script else [sys.executable, "-m", "vqakit"]
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(path), env.get("PYTHONPATH")]))
    return subprocess.run([*command, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


@pytest.fixture(scope="module")
def bench(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("backendbench")
    write_index_clip(root / "media/clip.mp4", seconds=2, width=64, height=48, gop=10)
    card = {"name": "backends", "version": "1", "license": "CC0-1.0", "description": "Backend checks."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = [
        {"id": f"q{i}", "videos": [{"path": "media/clip.mp4"}], "question": f"Question {i}?",
         "choices": ["zero", "one", "two"], "answer": i}
        for i in range(2)
    ]  # fmt: skip
    (root / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    return root


def test_the_built_in_forms_are_listed_as_before():
    assert [form for form, _, _ in SPEC_FORMS] == [
        "openai:<model>",
        "openai-compatible:<base_url>#<model>",
        "anthropic:<model>",
        "gemini:<model>",
        "hf:<hub id or local folder>",
        "replay:<file.jsonl>",
        "<any form>?key=value&...",
        "<any form>?timeout=S&total_timeout=S",
    ]
    api = [name for name, info in backends().items() if info.api]
    assert api == ["openai", "openai-compatible", "anthropic", "gemini"]


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="already registered"):
        register_backend("openai", form="openai:<x>", example="openai:x", summary="other")(lambda spec: 0)
    with pytest.raises(ValueError, match="without ':'"):
        register_backend("a:b", form="a:b", example="a:b", summary="bad")
    assert backends()["openai"].factory.__name__ == "OpenAIBackend"


def test_a_backend_registered_from_test_code_runs_an_eval(bench: Path):
    result = vqakit("eval", str(bench), "--model", "toy:B", "--frames", "uniform:3", "--out", "backendrun",
                    cwd=bench.parent, script=TOY)  # fmt: skip
    assert result.returncode == 0, result.stderr
    run = bench.parent / "backendrun"
    assert yaml.safe_load((run / "config.yaml").read_text())["model"] == "toy:B"
    predictions = [json.loads(line) for line in (run / "predictions.jsonl").read_text().splitlines()]
    assert [p["reply"] for p in predictions] == ["I was sent 3 images; the answer is (B)."] * 2
    rows = [json.loads(line) for line in (run / "scores.jsonl").read_text().splitlines()]
    scores = {row["sample_id"]: row for row in rows}
    assert scores["q1"]["correct"] is True and scores["q0"]["correct"] is False
    listed = vqakit("models", cwd=bench.parent, script=TOY).stdout
    assert "toy:<letter>\n    e.g. toy:B\n    answers every question" in listed


def test_its_own_checks_refuse_a_run_before_it_starts(bench: Path):
    bad = vqakit("eval", str(bench), "--model", "toy:BB", "--out", "bad", cwd=bench.parent, script=TOY)
    assert bad.returncode == 2 and "toy: 'BB' is not one option letter" in bad.stderr
    seeded = vqakit("eval", str(bench), "--model", "toy:B?seed=1", "--out", "bad",
                    cwd=bench.parent, script=TOY)  # fmt: skip
    assert seeded.returncode == 2 and "toy: cannot send seed (the toy does not sample)" in seeded.stderr
    unknown = vqakit(
        "eval", str(bench), "--model", "toy:B", "--out", "bad", cwd=bench.parent
    )  # fmt: skip  (not registered here)
    assert unknown.returncode == 2 and "unknown model backend 'toy'" in unknown.stderr
    assert not (bench.parent / "bad").exists()


def _documented_example() -> str:
    section = ARCHITECTURE.read_text().split("## How to add a model backend", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def _install(site: Path, name: str, module: str, code: str) -> None:
    """A package as pip would leave it: the module and its dist-info with one entry point."""
    site.mkdir(exist_ok=True)
    (site / f"{module}.py").write_text(code)
    info = site / f"{module}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[vqakit.backends]\n{name} = {module}\n")


def test_an_installed_backend_is_found_through_its_entry_point(bench: Path, tmp_path: Path):
    site = tmp_path / "site"
    _install(site, "fixed", "vqakit_fixed", _documented_example())
    _install(site, "broken", "vqakit_broken", "raise ImportError('needs a library that is not here')\n")
    listed = vqakit("models", cwd=tmp_path, path=site)
    assert listed.returncode == 0, listed.stderr
    assert "fixed:<letter>\n    e.g. fixed:A" in listed.stdout
    why = "could not load model backend broken: ImportError: needs a library that is not here"
    assert why in listed.stderr
    out = str(tmp_path / "run")
    result = vqakit("eval", str(bench), "--model", "fixed:A", "--out", out, cwd=tmp_path, path=site)
    assert result.returncode == 0, result.stderr
    predictions = (tmp_path / "run/predictions.jsonl").read_text().splitlines()
    assert [json.loads(line)["reply"] for line in predictions] == ["(A)", "(A)"]
    refused = vqakit("eval", str(bench), "--model", "fixed:AB", "--out", "x", cwd=tmp_path, path=site)
    assert refused.returncode == 2 and "fixed: 'AB' is not one option letter" in refused.stderr
