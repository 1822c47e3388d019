"""Every command that needs an extra names its `pip install` line before work starts: each
extra's modules are hidden in turn (as if never installed) and every verb that needs it is run;
each exits 2 with `pip install 'vqakit[EXTRA]'` and writes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vqakit.extras import EXTRAS, extra_of, install_line

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_MEDIA = ROOT / "src/vqakit/benchmarks/sample/media/pedestrians.mp4"
EX = ROOT / "docs/examples"

# sitecustomize for the child: every finder of the import system answers "no such module" for the
# modules in VQAKIT_TEST_HIDE (and their submodules), so find_spec gives None and import fails, as
# when the extra is not installed
HIDE = """
import os, sys
HIDDEN = tuple(m for m in os.environ.get("VQAKIT_TEST_HIDE", "").split(",") if m)
class Hide:
    def __init__(self, inner):
        self.inner = inner
    def find_spec(self, name, path=None, target=None):
        if any(name == m or name.startswith(m + ".") for m in HIDDEN):
            return None
        find = getattr(self.inner, "find_spec", None)
        return find(name, path, target) if find else None
    def __getattr__(self, name):
        return getattr(self.inner, name)
if HIDDEN:
    sys.meta_path[:] = [Hide(finder) for finder in sys.meta_path]
"""

R = "replay:replies.jsonl"  # a replay file the test writes: the model is never reached
CHECKERS = "replay:a.jsonl,replay:b.jsonl,replay:c.jsonl"
# extra -> the commands that need it ({out} is a folder that must not appear)
NEEDS: dict[str, list[list[str]]] = {
    "embed": [
        ["eval", "sample", "--method", "text-similarity", "--out", "{out}"],
        ["eval", "sample", "--method", "rag", "--model", R, "--out", "{out}"],
        ["index", "sample", "--out", "{out}"],
        ["build", "instructionbench", "--annotations", f"{EX}/instructionbench/steps_build.csv",
         "--videos", ".", "--llm", R, "--checkers", CHECKERS, "--out", "{out}"],
        ["build", "egofact", "--videos", ".", "--events", f"{EX}/egofact/events.jsonl",
         "--passages", f"{EX}/egofact/passages.jsonl", "--llm", R, "--vlm", R, "--out", "{out}"],
    ],
    "hf": [
        ["eval", "sample", "--model", "hf:HuggingFaceTB/SmolVLM2-256M-Video-Instruct", "--out", "{out}"],
        ["index", "sample", "--image-embedder", "clip:.", "--out", "{out}"],
    ],
    "ray": [["eval", "sample", "--method", "random", "--engine", "ray", "--out", "{out}"]],
    "lancedb": [["index", "sample", "--store", "lancedb", "--out", "{out}"]],
    "graphrag": [["eval", "sample", "--method", "graphrag", "--model", R, "--out", "{out}"]],
    "scenes": [
        ["align", str(SAMPLE_MEDIA), str(SAMPLE_MEDIA), "--image-embedder", "clip:.", "--out", "{out}"],
        ["build", "movierecapsqa", "--manifest", f"{EX}/movierecapsqa/build/manifest.csv", "--llm", R,
         "--out", "{out}"],
    ],
    "studio": [
        ["studio", "sample"],
        ["review", "sample"],
        ["review", "apply", "sample", "--policy", "all", "--out", "{out}"],
    ],
    "tables": [
        ["export-bench", "sample", "--format", "hf", "--out", "{out}"],
        ["import", "videomme", f"{EX}/datasets/videomme", "--videos", f"{EX}/datasets/videomme/data",
         "--out", "{out}"],
    ],
    "anthropic": [["eval", "sample", "--model", "anthropic:claude-sonnet-4-5", "--out", "{out}"]],
    "gemini": [["eval", "sample", "--model", "gemini:gemini-2.5-pro", "--out", "{out}"]],
}  # fmt: skip
CASES = [(extra, command) for extra, commands in NEEDS.items() for command in commands]


def test_every_required_extra_is_tried():
    optional = {"jpeg"}  # frames are encoded with Pillow without it: no command needs it
    assert set(NEEDS) == set(EXTRAS) - optional


@pytest.mark.parametrize(("extra", "command"), CASES, ids=[f"{e}:{' '.join(c[:2])}" for e, c in CASES])
def test_a_missing_extra_is_named_before_work_starts(extra: str, command: list[str], tmp_path: Path):
    (tmp_path / "sitecustomize.py").write_text(HIDE)
    for name in ("replies", "a", "b", "c"):
        (tmp_path / f"{name}.jsonl").write_text('{"sample_id": "none", "reply": "A"}\n')
    out = tmp_path / "out"
    env = {
        **os.environ,
        "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT / 'src'}",
        "VQAKIT_TEST_HIDE": ",".join(EXTRAS[extra]),
        "ANTHROPIC_API_KEY": "test-key",
        "GEMINI_API_KEY": "test-key",
        "OMP_NUM_THREADS": "1",
    }
    argv = [part.replace("{out}", str(out)) for part in command]
    result = subprocess.run(
        [sys.executable, "-m", "vqakit", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert install_line(extra) in result.stderr
    assert not out.exists()


@pytest.mark.parametrize(
    ("module", "extra"),
    [
        ("starlette", "studio"),
        ("starlette.routing", "studio"),
        ("google", "gemini"),
        ("yaml", None),
        (None, None),
    ],
)
def test_which_extra_a_missing_module_belongs_to(module, extra):
    assert extra_of(module) == extra
