"""Every verb's one-line summary fits `vqakit --help` (and its group's help) whole: no summary is
cut mid-phrase with "...", on an 80-column terminal as on a wide one."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from vqakit.cli import main


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], click.Command]]:
    ctx = click.Context(group)
    found = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        found.append(((*path, name), command))
        if isinstance(command, click.Group):
            found += _commands(command, (*path, name))
    return found


COMMANDS = _commands(main)


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_a_summary_is_one_short_sentence(path, command):
    summary = command.get_short_help_str(limit=1000)
    assert summary and summary.endswith(".") and not summary.endswith("..."), summary
    assert len(summary) < 60, f"{' '.join(path)}: {summary!r} is {len(summary)} characters"
    assert "\n" not in summary


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("group", [(), *sorted({p[:-1] for p, _ in COMMANDS if len(p) > 1})])
def test_help_shows_every_summary_whole(group, columns):
    output = CliRunner().invoke(main, [*group, "--help"], terminal_width=columns).output
    listing = output.split("Commands:", 1)[1]
    assert not any(line.rstrip().endswith("...") for line in listing.splitlines())
    flat = " ".join(listing.split())
    for path, command in COMMANDS:
        if path[:-1] == group:
            assert f"{path[-1]} {command.get_short_help_str(limit=1000)}" in flat, path
