"""`vqakit plan`: what a run will send and cost, before it runs (also the top of `eval --dry-run`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from vqakit.cli.evaluate import evaluate, run_settings

PRICES_HELP = (
    "A price table (YAML or JSON: MODEL_SPEC_OR_PATTERN: {input: USD per 1M tokens, output: ...}) for "
    "the cost line; default $VQAKIT_PRICES. vqakit ships no prices."
)


def print_plan(settings: dict[str, Any], out: Path | None, prices: Path | None, timing: bool) -> int:
    """Print the plan of each run the settings make; 2 when a request exceeds a known limit."""
    from vqakit.extras import MissingExtra
    from vqakit.files import InputError
    from vqakit.methods import MethodSetupError
    from vqakit.runner import RunSetupError, estimate_lines, estimate_runs, read_prices

    try:
        found = estimate_runs(settings, out, prices=read_prices(prices), time_request=timing)
    except (MethodSetupError, RunSetupError, MissingExtra) as error:
        raise click.UsageError(str(error)) from None
    except (InputError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    for estimate in found:
        for line in estimate_lines(estimate):
            click.echo(line, err=line.startswith("refused:"))
    return 2 if any(estimate.refusals for estimate in found) else 0


def _plan(
    bench: str, out: Path | None, new_run: bool, prices: Path | None, timing: bool, **arguments: Any
) -> None:
    sys.exit(print_plan(run_settings(bench, arguments), out, prices, timing))


# eval's options, but those of a run folder's own files (a plan reads none) and the preflight (a
# plan's one timed request is its own)
RUN_OPTIONS = [
    p for p in evaluate.params if p.name not in ("new_run", "dry_run", "set_aside_bad_lines", "preflight")
]

plan = click.Command(
    "plan",
    callback=_plan,
    params=[
        *RUN_OPTIONS,
        click.Option(["--new-run"], is_flag=True, hidden=True),
        click.Option(["--prices"], type=click.Path(dir_okay=False, path_type=Path), help=PRICES_HELP),
        click.Option(
            ["--timing/--no-timing"],
            default=True,
            show_default=True,
            help="Time one real request (the first sample's, past the response cache) for the wall time.",
        ),
    ],
    help="Count a run's requests, tokens and cost.\n\n"
    "Takes the options of `vqakit eval` and counts what that run would send, as it would send it: "
    "samples, requests, images a request and their size, input tokens by the provider's published "
    "image rule (which rule is said), cost from --prices, wall time from one timed request, frames "
    "to decode against those already in the frame store. A run whose requests exceed what the "
    "provider takes (images or bytes a request, the context the server reports) is refused, naming "
    "the limit and the --frames or --short-side that fits (exit 2). Writes no run folder.",
)
