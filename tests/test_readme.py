"""The README's two set-up commands: the test command is what CI runs, verbatim."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)]


def test_exactly_two_setup_commands():
    commands = readme_commands()
    assert len(commands) == 2
    assert all(command.count("\n") == 0 for command in commands)
    assert "vqakit" in commands[0] and "sample" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()
