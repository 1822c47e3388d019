"""`vqakit eval`: run a method over a benchmark into a run folder and score it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from vqakit.cli._options import concurrency_option, method_and_judge_settings, method_options


def accuracy_line(label: str, outcome: Any) -> str:
    """`label: accuracy 61.1% [95% CI 44.4-77.8] on 36 MCQ samples (0 resumed, 46 run) -> folder`."""
    overall = outcome.results["overall"]
    accuracy = "n/a" if overall["accuracy"] is None else f"{100 * overall['accuracy']:.1f}%"
    low, high = overall["ci95"]
    interval = "" if overall["accuracy"] is None else f" [95% CI {100 * low:.1f}-{100 * high:.1f}]"
    return (
        f"{label}: accuracy {accuracy}{interval} on {overall['n']} MCQ samples "
        f"({outcome.finished_before} resumed, {outcome.ran} run) -> {outcome.folder}"
    )


@click.command()
@click.argument("bench")
@click.option("--model", "model", help="Model spec (see `vqakit models`). Without it, offline baselines run.")
@click.option(
    "--method",
    default=None,
    help="direct (default with a model), blind, hints, rag, rag+localize, rag+split, oracle-clip, "
    "random, text-similarity (`vqakit methods` lists all).",
)
@click.option("--frames", help="Frame spec overriding the benchmark's, e.g. uniform:32 or fps:1,max=64.")
@click.option("--short-side", type=int, help="Resize frames so the short side has PX pixels.")
@click.option("--prompt", help="Prompt template name (mcq, mcq_reasoning, mcq_numbered, open_short).")
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Run folder (default runs/...)."
)
@concurrency_option
@click.option("--limit", type=click.IntRange(1), help="Only the first N samples.")
@click.option("--new-run", is_flag=True, help="Start a fresh run folder when the config changed.")
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: asyncio in this process; ray: samples as Ray tasks.",
)
@click.option("--ray-address", help="Ray cluster to use with --engine ray (default: a local instance).")
@click.option("--group-by", help="Extra metadata keys to break results down by, comma-separated.")
@click.option(
    "--hints",
    "hint_style",
    help="Style of --method hints: box, circle, contour, classes, text, temporal joined by + "
    "(default circle+classes+temporal).",
)
@click.option("--detector", help="For --method hints on samples without tracks, e.g. owlv2:<folder>.")
@click.option(
    "--judge",
    "judge_values",
    multiple=True,
    metavar="NAME=SPEC",
    help="Assign a model to a judge (repeatable): open (open-ended answers yes/no; a bare SPEC means "
    "this one), extract, rubric, sufficiency, ... (`vqakit systems` lists them).",
)
@click.option("--extractor", "extractor_spec", help="Model that reads MCQ replies the rules abstained on.")
@click.option(
    "--rubric-judge", "rubric_spec", help="Model that grades reasoning against reference traces (MiRA)."
)
@method_options
def evaluate(bench: str, out: Path | None, new_run: bool, group_by: str | None, **arguments: Any) -> None:
    """Run a method over BENCH and score it; rerunning the same command resumes."""
    from rich.progress import Progress

    from vqakit.methods import MethodSetupError
    from vqakit.runner import RunConfigError, RunSetupError, evaluate

    settings = {
        "bench": bench,
        **method_and_judge_settings(arguments),
        **{key: value for key, value in arguments.items() if value is not None},
        "group_by": tuple(key.strip() for key in (group_by or "").split(",") if key.strip()),
    }
    with Progress(transient=True) as progress:
        task = progress.add_task("", total=None)

        def started(config: Any, folder: Path) -> None:
            progress.update(task, description=config.method, completed=0, total=None)

        try:
            evaluate(
                settings,
                out,
                new_run=new_run,
                on_notes=lambda notes: [click.echo(note) for note in notes],
                on_start=started,
                on_progress=lambda finished, total: progress.update(task, completed=finished, total=total),
                on_done=lambda config, outcome: click.echo(accuracy_line(config.method, outcome)),
            )
        except (MethodSetupError, RunSetupError) as error:
            raise click.UsageError(str(error)) from None
        except (RunConfigError, ValueError) as error:
            raise click.ClickException(str(error)) from None
