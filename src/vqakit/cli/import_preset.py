"""`vqakit import <preset>`: one command per registered benchmark preset (Video-MME, MVBench, ...),
made from the preset registry when the `import` group is asked for its commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from vqakit.cli.import_table import echo_import


def _command(preset: Any) -> click.Command:
    def run(release: Path, videos: Path, out: Path, split: str | None = None, **options: Any) -> None:
        from vqakit.schema import BenchmarkError

        chosen = {key: value for key, value in options.items() if value is not None}
        try:
            report = preset.import_checked(release, videos, out, split=split, **chosen)
        except (ValueError, BenchmarkError) as error:
            raise click.ClickException(str(error)) from None
        echo_import(report, out)
        for note in preset.notes:
            click.echo(note)

    params: list[click.Parameter] = [
        click.Argument(["release"], type=click.Path(exists=True, path_type=Path)),
        click.Option(
            ["--videos"],
            required=True,
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help="Folder of the videos as the release's instructions unpack them.",
        ),
        click.Option(["--out"], required=True, type=click.Path(file_okay=False, path_type=Path)),
    ]
    if preset.splits:
        params.append(
            click.Option(
                ["--split"],
                type=click.Choice(list(preset.splits)),
                help=f"Which split ({', '.join(preset.splits)}; default {preset.splits[0]}).",
            )
        )
    for option in preset.options:
        flag = "--" + option.name.replace("_", "-")
        if option.flag:
            params.append(click.Option([flag, option.name], is_flag=True, default=None, help=option.help))
        else:
            kind = click.Choice(list(option.choices)) if option.choices else None
            params.append(
                click.Option([flag, option.name], type=kind, default=option.default, help=option.help)
            )
    help_text = f"{preset.title}: {preset.summary}" + (f" ({preset.homepage})" if preset.homepage else "")
    short = f"Import the {preset.title} release."
    return click.Command(preset.name, callback=run, params=params, help=help_text, short_help=short)


def preset_commands() -> dict[str, click.Command]:
    """`vqakit import <name>` for every registered preset."""
    from vqakit.tables import presets

    return {name: _command(preset) for name, preset in presets().items()}
