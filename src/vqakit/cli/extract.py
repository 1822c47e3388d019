"""`vqakit extract`: the answer extractor on JSONL from stdin."""

from __future__ import annotations

import json
import string
import sys

import click


def _letters(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    value = value.upper()
    if not value or len(set(value)) < len(value) or not set(value) <= set(string.ascii_uppercase):
        raise click.BadParameter(f"expected 1 to 26 different letters A-Z, got {value!r}")
    return value


@click.command()
@click.option("--choices", "n_choices", type=click.IntRange(1, 26), help="Number of options (1-26), A..")
@click.option("--letters", callback=_letters, help="Sparse option labels instead, e.g. ACXZ.")
@click.option("--numbered", is_flag=True, help="Options were shown as (1)..(N), as in Minerva-Ego.")
def extract(n_choices: int | None, letters: str | None, numbered: bool) -> None:
    """Read the chosen letter out of model replies.

    Read JSONL {"response": ...} on stdin; write {"choice": "B"} or {"choice": null} per line.

    Give exactly one of --choices N and --letters. A line may also carry "choices": [option
    texts], used to match replies that restate one.
    """
    if (n_choices is None) == (letters is None):
        raise click.UsageError("give exactly one of --choices N and --letters")
    from vqakit.files import find_unusable, parse_json
    from vqakit.scoring import extract_choice

    n_choices = n_choices or len(letters or "")
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            record = parse_json(line)
            if found := find_unusable(record):
                raise ValueError(f"{found[0]}: {found[1]}")
            response = record["response"]
        except (ValueError, KeyError, TypeError) as error:
            raise click.ClickException(
                f'stdin line {number}: expected {{"response": ...}} ({error})'
            ) from None
        try:
            result = extract_choice(
                response, n_choices, choices=record.get("choices"), numbered=numbered, letters=letters
            )
        except ValueError as error:
            raise click.ClickException(f"stdin line {number}: {error}") from None
        click.echo(json.dumps({"choice": result.letter}))
