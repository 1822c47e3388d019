"""The import order of docs/architecture.md, checked by import-linter (pyproject.toml): the real
tree keeps every contract, and a deliberately wrong import breaks them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT = str(Path(sys.executable).with_name("lint-imports"))


def lint(pythonpath: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, **({"PYTHONPATH": str(pythonpath)} if pythonpath else {})}
    return subprocess.run(
        [LINT, "--no-cache", "--no-logo"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120
    )


def test_the_tree_keeps_every_contract():
    result = lint()
    assert result.returncode == 0, result.stdout
    assert "3 kept, 0 broken" in result.stdout


def test_a_wrong_import_breaks_the_contracts(tmp_path: Path):
    shutil.copytree(ROOT / "src" / "vqakit", tmp_path / "vqakit")
    with open(tmp_path / "vqakit/scoring/_audit.py", "a") as handle:
        handle.write("\nfrom vqakit.runner import EvalConfig  # a lower layer importing a higher one\n")
    with open(tmp_path / "vqakit/report/_sweep.py", "a") as handle:
        handle.write("\nfrom vqakit.scoring._metrics import accuracy_summary  # a private module\n")
    with open(tmp_path / "vqakit/systems/egofact/report.py", "a") as handle:
        handle.write("\nfrom vqakit.systems.minerva_ego import recall  # one system importing another\n")
    result = lint(tmp_path)
    assert result.returncode == 1
    out = " ".join(result.stdout.split())
    assert "vqakit.scoring is not allowed to import vqakit.runner" in out
    assert "vqakit.report._sweep:" in out and "imports private module vqakit.scoring._metrics" in out
    assert "0 kept, 3 broken" in out
