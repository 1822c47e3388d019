"""`vqakit eval --help` lists the methods from the registry (built-in ones and plug-ins), read when
the help is shown, so a new method is listed without editing the command line."""

from __future__ import annotations

import re

from click.testing import CliRunner

from vqakit.cli import main
from vqakit.methods import methods


def test_eval_help_lists_every_registered_method():
    text = CliRunner().invoke(main, ["eval", "--help"], terminal_width=100).output
    flat = re.sub(r"-\s+", "-", re.sub(r"\s+", " ", text))  # help wraps lines, also after a hyphen
    listed = flat.split("--method TEXT", 1)[1].split("--frames", 1)[0]
    missing = [name for name in methods() if f" {name}," not in listed and f" {name} (" not in listed]
    assert not missing, f"not in `vqakit eval --help`: {missing}\n{listed}"
