"""docs/cli.md is generated from the click commands (scripts/make_cli_docs.py) and agrees with
them: a verb, option or help text changed without regenerating the page fails here, saying the
one command that fixes it."""

from __future__ import annotations

import difflib
import importlib.util
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts/make_cli_docs.py"


def _generator():
    spec = importlib.util.spec_from_file_location("make_cli_docs", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_is_what_the_commands_say():
    written = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    generated = _generator().page()
    if written != generated:
        diff = "".join(
            list(
                difflib.unified_diff(
                    written.splitlines(True), generated.splitlines(True), "docs/cli.md", "now"
                )
            )[:60]
        )
        raise AssertionError(f"docs/cli.md is out of date: run python scripts/make_cli_docs.py\n{diff}")


def test_every_verb_has_a_section_and_a_row():
    from vqakit.cli import main

    text = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    for path, _ in _generator().commands(main):
        name = " ".join(("vqakit", *path))
        assert f"\n## {name}\n" in text and f"[`{name}`]" in text, name


def test_check_mode_exits_1_on_a_stale_page(tmp_path: Path):
    generator = _generator()
    stale = tmp_path / "cli.md"
    stale.write_text("# old\n")
    generator.PAGE = stale
    assert generator.main_(["--check"]) == 1
    assert generator.main_([]) == 0 and generator.main_(["--check"]) == 0
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
