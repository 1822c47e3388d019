"""The mutation fuzz of every reader of user files (benchmarks/fuzz_importers.py), bounded: six
mutated inputs per target (156 cases, about as many as before `import table` and the seven
presets joined), each ending accepted or as a clean error naming its file; never the catch-all,
an error without the file, a write outside --out, or a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main

ROOT = Path(__file__).resolve().parents[2]
TARGETS = 26
CASES_PER_TARGET = 6
TABLE_TARGETS = {
    "import table (csv)",
    "import table (jsonl)",
    "import videomme",
    "import nextqa",
    "import egoschema",
    "import longvideobench",
    "import mvbench",
    "import mlvu",
    "import perceptiontest",
}


def _script(name: str, tmp_path, *arguments: str, timeout: int) -> tuple[subprocess.CompletedProcess, list]:
    """Run a fuzz script of benchmarks/ on this checkout; (the run, the outcomes it wrote)."""
    report = tmp_path / f"{name}.json"
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / f"{name}.py"), *arguments, "--json", str(report)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "TMPDIR": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result, json.loads(report.read_text())


def test_mutated_inputs_end_cleanly(tmp_path):
    result, outcomes = _script("fuzz_importers", tmp_path, "-n", str(CASES_PER_TARGET * TARGETS), timeout=300)
    assert len({o["target"] for o in outcomes}) == TARGETS
    assert {o["target"] for o in outcomes} >= TABLE_TARGETS
    bad = [o for o in outcomes if o["outcome"] not in ("accepted", "clean error naming the file")]
    assert bad == [], result.stdout[-4000:]
    assert sum(o["outcome"] == "clean error naming the file" for o in outcomes) > 20  # the mutations bite


@pytest.mark.parametrize("failing", ["read_youcook2"])
def test_the_catch_all_names_the_command_and_the_file(tmp_path, monkeypatch, failing):
    import vqakit.systems.instructionbench.importers as importers

    def bug(*args, **kwargs):
        raise KeyError("a bug")

    monkeypatch.setattr(importers, failing, bug)
    annotations = tmp_path / "youcook2.json"
    annotations.write_text(json.dumps({"database": {}}))
    result = CliRunner().invoke(main, ["steps", str(annotations)])
    assert result.exit_code == 1
    assert result.output.startswith("Error: vqakit steps: KeyError: 'a bug' (")
    assert f"last input read: {annotations}" in result.output and "VQAKIT_DEBUG=1" in result.output


def test_single_bad_files_and_look_alike_ids_end_well(tmp_path):
    """benchmarks/fuzz_bad_files.py, each case once (28): one bad subtitle, frame, cell or map
    leaves out only the questions that use it, named by its real path (a map every question uses
    may end the import, naming it); look-alike ids never share a file or a clip."""
    result, outcomes = _script("fuzz_bad_files", tmp_path, timeout=400)
    assert len(outcomes) >= 28 and {o["target"] for o in outcomes} >= {
        "import longvideobench",
        "import mvbench",
        "import videomme",
        "import nextqa",
        "import table (parquet)",
        "import table (csv)",
        "import minerva (look-alike ids)",
        "eval --input video (look-alike ids)",
    }
    bad = [o for o in outcomes if o["outcome"] not in ("survived", "clean error naming the file")]
    assert bad == [], result.stdout[-4000:]
    named = [o for o in outcomes if o["outcome"] == "clean error naming the file"]
    assert named and {o["target"] for o in named} <= {"import nextqa", "import egoschema"}
