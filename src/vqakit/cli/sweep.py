"""`vqakit sweep`: one run per value of one parameter."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from vqakit.cli._options import (
    INTERRUPTED_EXIT,
    concurrency_option,
    method_options,
    settings_from,
    time_limit_options,
)
from vqakit.cli._progress import progress


@click.command()
@click.argument("bench")
@click.option("--model", "model", required=True, help="Model spec (see `vqakit models`).")
@click.option("--method", default="direct", show_default=True)
@click.option(
    "--frames", "frames_values", help="Frame specs to sweep: KIND:V1,V2,... e.g. uniform:0,1,8,16,64."
)
@click.option("--short-side", "short_side_values", help="Short sides to sweep: 224,448,...")
@click.option("--upscale", is_flag=True, help="Enlarge frames smaller than the short side (not by default).")
@click.option("--prompt", "prompt_values", help="Prompt templates to sweep: mcq,mcq_reasoning")
@click.option(
    "--windows", "window_values", help="rag+localize / rag+split window lengths to sweep: 1,3,5,10,15,30"
)
@click.option("--top-clips-values", "top_clips_values", help="Numbers of retrieved clips to sweep: 1,3,5")
@click.option(
    "--sweep-arg",
    "sweep_arg",
    metavar="KEY=V1,V2,...",
    help="Any option of the method to sweep, e.g. caption_frames=5,15,30.",
)
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Sweep folder (default runs/...)."
)
@concurrency_option
@click.option("--limit", type=click.IntRange(1), help="Only the first N samples.")
@time_limit_options
@method_options
def sweep(
    bench: str,
    method: str,
    frames_values: str | None,
    short_side_values: str | None,
    prompt_values: str | None,
    window_values: str | None,
    top_clips_values: str | None,
    sweep_arg: str | None,
    out: Path | None,
    **arguments: Any,
) -> None:
    """One run per value of a parameter, with a plot.

    One run per value of one parameter; prints accuracy against the value and writes
    sweep.json and sweep.html (each run keeps its own folder and report)."""
    from vqakit.benchmarks import load_benchmark
    from vqakit.methods import MethodSetupError
    from vqakit.models import PreflightError
    from vqakit.runner import (
        RunConfigError,
        RunInterrupted,
        RunSetupError,
        RunStopped,
        default_run_folder,
        expand_values,
        make_config,
        run_sweep,
        swept_accuracy,
    )
    from vqakit.scoring import intervals_note

    swept = {
        key: value
        for key, value in (
            ("frames", frames_values),
            ("short_side", short_side_values),
            ("prompt", prompt_values),
            ("window_s", window_values),
            ("top_clips", top_clips_values),
            *([sweep_arg.split("=", 1)] if sweep_arg and "=" in sweep_arg else []),
        )
        if value
    }
    if sweep_arg and "=" not in sweep_arg:
        raise click.UsageError(f"--sweep-arg takes KEY=V1,V2,..., got {sweep_arg!r}")
    if len(swept) != 1:
        raise click.UsageError(
            "sweep exactly one of --frames, --short-side, --prompt, --windows, --top-clips-values "
            "or --sweep-arg"
        )
    ((parameter, text),) = swept.items()
    preflight = arguments.pop("preflight")
    settings = settings_from(arguments)
    settings["method_args"].pop(parameter, None)
    try:
        values = expand_values(parameter, text, method)
        base = make_config({"bench": bench, "method": method, **settings})
        folder = out or default_run_folder(
            load_benchmark(bench), method, base.model, suffix=f"sweep-{parameter}"
        )
        with progress() as update:
            outcomes = run_sweep(
                base,
                parameter,
                values,
                folder,
                on_progress=lambda value, seen: update(
                    seen.done, seen.total, seen.errors, value, seen.not_applicable
                ),
                preflight=preflight,
            )
    except (MethodSetupError, RunSetupError, PreflightError) as error:
        raise click.UsageError(str(error)) from None
    except (RunConfigError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    except RunInterrupted as stopped:
        click.echo(str(stopped), err=True)
        sys.exit(INTERRUPTED_EXIT)
    except RunStopped as stopped:
        click.echo(str(stopped), err=True)
        sys.exit(1)
    measures = {swept_accuracy(outcome.results)[0] for _, outcome in outcomes}
    heading = measures.pop() if len(measures) == 1 else "accuracy"
    click.echo(f"{parameter:<20}{'n':>5}{heading:>22}{'95% CI':>16}")
    for value, outcome in outcomes:
        _, summary = swept_accuracy(outcome.results)
        if summary["accuracy"] is None:
            click.echo(f"{value!s:<20}{summary['n']:>5}{'n/a':>22}")
            continue
        low, high = summary["ci95"]
        click.echo(
            f"{value!s:<20}{summary['n']:>5}{100 * summary['accuracy']:>21.1f}%"
            f"{f'{100 * low:.1f}-{100 * high:.1f}':>16}"
        )
    click.echo(intervals_note([outcome.results for _, outcome in outcomes]))
    click.echo(f"-> {folder / 'sweep.html'}")
