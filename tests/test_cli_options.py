"""Every verb's --help still lists each option it had in vqakit 0.1 (recorded in
tests/fixtures/cli_options_0.1.json before the command line became one module per verb)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main

BEFORE = json.loads((Path(__file__).parent / "fixtures" / "cli_options_0.1.json").read_text())


@pytest.mark.parametrize("verb", sorted(BEFORE))
def test_help_lists_every_earlier_option(verb: str):
    result = CliRunner().invoke(main, [*verb.split(), "--help"])
    assert result.exit_code == 0, result.output
    listed = set(re.findall(r"^\s+(--[a-z][a-z0-9-]*)", result.output, re.MULTILINE))
    assert set(BEFORE[verb]) <= listed, f"missing: {sorted(set(BEFORE[verb]) - listed)}"


def test_eval_and_sweep_have_the_generic_options():
    for verb in ("eval", "sweep"):
        text = CliRunner().invoke(main, [verb, "--help"]).output
        assert "--method-arg" in text
    assert "NAME=SPEC" in CliRunner().invoke(main, ["eval", "--help"]).output
    assert "--sweep-arg" in CliRunner().invoke(main, ["sweep", "--help"]).output
