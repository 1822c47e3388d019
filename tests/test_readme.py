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


def test_the_readme_fits_on_a_screen_and_links_the_rest():
    """A newcomer reads it in two minutes: under 200 lines, no wall of a table cell, and the
    full command reference a link away (docs/cli.md, generated from the commands)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 200
    assert max(len(line) for line in text.splitlines() if not line.startswith("python3 -m venv")) < 200
    assert "(docs/cli.md)" in text and "(docs/commands.md)" in text


def test_one_runnable_example_per_use():
    """Each use has a shell block the doc tests run (no `skip` marker before it)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [
        code
        for before, code in re.findall(r"([^\n]*)\n```bash\n(.*?)```", text, re.DOTALL)
        if "skip=" not in before
    ]
    for heading, command in [
        ("## Evaluate a model served by vLLM or an API", "vqakit eval sample --model"),
        ("## Import a standard dataset", "vqakit import nextqa"),
        ("## Build a benchmark", "vqakit build egofact"),
        ("## People in the loop: the studio", "vqakit studio sample"),
    ]:
        assert heading in text
        assert any(command in code for code in blocks), command


def test_the_readme_names_every_extra():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "optional-dependencies"
    ]
    table = (ROOT / "README.md").read_text(encoding="utf-8").split("## Extras", 1)[1].split("\n## ", 1)[0]
    for extra in extras:
        assert f"`{extra}`" in table, extra
