"""`vqakit extract`: the answer extractor on JSONL from stdin."""

from __future__ import annotations

import json
import sys

import click


@click.command()
@click.option("--choices", "n_choices", type=click.IntRange(2, 8), required=True, help="Number of options.")
@click.option("--numbered", is_flag=True, help="Options were shown as (1)..(N), as in Minerva-Ego.")
def extract(n_choices: int, numbered: bool) -> None:
    """Read JSONL {"response": ...} on stdin; write {"choice": "B"} or {"choice": null} per line.

    A line may also carry "choices": [option texts], used to match replies that restate one.
    """
    from vqakit.scoring import extract_choice

    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            response = record["response"]
        except (ValueError, KeyError, TypeError) as error:
            raise click.ClickException(
                f'stdin line {number}: expected {{"response": ...}} ({error})'
            ) from None
        result = extract_choice(response, n_choices, choices=record.get("choices"), numbered=numbered)
        click.echo(json.dumps({"choice": result.letter}))
