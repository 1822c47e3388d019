"""scripts/make_sample_benchmark.py writes exactly the shipped sample benchmark from its data files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts/make_sample_benchmark.py"
SHIPPED = REPO / "src/vqakit/benchmarks/sample"
WRITTEN = ["samples.jsonl", "corpus/clips.jsonl", "corpus/passages.jsonl"]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sample")
    subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)], check=True, capture_output=True, cwd=REPO
    )
    return out


@pytest.mark.parametrize("name", WRITTEN)
def test_script_writes_the_shipped_file(written: Path, name: str) -> None:
    assert (written / name).read_bytes() == (SHIPPED / name).read_bytes(), (
        f"{name} differs from the shipped one: run `python scripts/make_sample_benchmark.py` "
        "after editing scripts/sample_benchmark/ and commit both"
    )


def test_script_writes_nothing_else(written: Path) -> None:
    """It leaves benchmark.yaml and media/ alone (and renders no clips)."""
    files = sorted(str(p.relative_to(written)) for p in written.rglob("*") if p.is_file())
    assert files == sorted(WRITTEN)
