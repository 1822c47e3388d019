"""`vqakit eval`: run a method over a benchmark into a run folder and score it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from vqakit.cli._options import (
    INTERRUPTED_EXIT,
    PENDING_EXIT,
    concurrency_option,
    judge_batch_options,
    judge_batch_settings,
    method_options,
    set_aside_line,
    set_aside_option,
    settings_from,
    time_limit_options,
)
from vqakit.cli._progress import progress


def accuracy_line(label: str, outcome: Any) -> str:
    """`label: MCQ accuracy 61.1% [95% CI 44.4-77.8] on 36 samples; ... (0 resumed, 46 run) -> folder`:
    the run's headline numbers (`vqakit.scoring.headline`), errors and not-applicable samples
    beside them."""
    from vqakit.scoring import headline_of, headline_text

    results = outcome.results
    parts = []
    for entry in headline_of(results):
        text = headline_text(entry)
        if entry["key"] == "mcq" and results.get("chance") is not None and label == "random":
            text += f" (chance {100 * results['chance']:.1f}%)"
        parts.append(text)
    counts = results.get("counts") or {}
    if not parts:
        unscored = counts.get("unscored (open-ended needs a judge)", 0)
        parts.append(
            f"nothing scored: {unscored} open-ended answer(s) need a judge (--judge NAME=SPEC; "
            "`vqakit systems` lists the judges)"
            if unscored
            else "nothing scored"
        )
    if counts.get("not applicable"):
        parts.append(f"{counts['not applicable']} not applicable")
    errors = results.get("errors") or {}
    if errors.get("n"):
        how = "counted as wrong" if errors.get("counted_as_wrong") else "not scored"
        if errors.get("scored_without_judge"):
            how += f"; {errors['scored_without_judge']} scored without a failed judge"
        parts.append(f"{errors['n']} errors ({how})")
    steps = results.get("step_failures") or {}
    if steps:
        listed = ", ".join(f"{step} {count}" for step, count in steps.items())
        parts.append(f"failed method steps, answered without them: {listed}")
    if results.get("judgments_pending"):
        parts.append(f"{results['judgments_pending']} judgments pending in batches")
    counts_text = f"({outcome.finished_before} resumed, {outcome.ran} run)"
    return f"{label}: {'; '.join(parts)} {counts_text} -> {outcome.folder}"


def error_summary(outcomes: list[Any]) -> str | None:
    """One line on the samples that ended in an error (a failed call, or a judge that failed on
    them), by kind; None when there are none."""
    from vqakit.scoring import errors_text

    return errors_text(outcome.results for outcome in outcomes)


def method_help() -> str:
    """The --method help: the methods a user runs with `eval` (vqakit's and every system's, from
    their declarations: no method module is imported to list them)."""
    from vqakit.methods import user_methods

    listed = ", ".join(user_methods())
    return f"The method to run: {listed} (default direct with a model; `vqakit methods` describes each)."


def run_settings(bench: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The run settings (`EvalConfig` fields) of the eval options in `arguments` (popped)."""
    batches = judge_batch_settings(arguments)
    frame_cache = arguments.pop("frame_cache")
    group_by = arguments.pop("group_by")
    return {
        "bench": bench,
        **({"frame_cache": False} if frame_cache is False else {}),
        **settings_from(arguments),
        "group_by": tuple(key.strip() for key in (group_by or "").split(",") if key.strip()),
        **batches,
    }


def prompt_help() -> str:
    """The --prompt help: every answer prompt (vqakit's, the systems' and the presets' own)."""
    from vqakit.prompts import answer_prompt_names

    listed = ", ".join(answer_prompt_names())
    return (
        f"Prompt template: {listed}, or a .txt file inside the benchmark folder "
        "(default: the benchmark's protocol)."
    )


class _ListedOption(click.Option):
    """An option whose help lists what is registered, read when the help is shown (so that
    `vqakit --help` reads no registry)."""

    def __init__(self, *args: Any, listing: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._listing = listing

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self._listing()
        return super().get_help_record(ctx)


@click.command()
@click.argument("bench")
@click.option("--model", "model", help="Model spec (see `vqakit models`). Without it, offline baselines run.")
@click.option(
    "--model-arg",
    "model_arg",
    multiple=True,
    metavar="KEY=VALUE",
    help="A generation setting of the model (repeatable): temperature, top_p, max_tokens, seed, system, "
    "stop, reasoning_effort, thinking_budget, thinking. Arguments are stored with the run: one carrying "
    "a key is refused (keys go in the environment, e.g. VQAKIT_API_KEY).",
)
@click.option("--method", cls=_ListedOption, listing=method_help, default=None, help="The method to run.")
@click.option("--frames", help="Frame spec overriding the benchmark's, e.g. uniform:32 or fps:1,max=64.")
@click.option(
    "--short-side",
    type=int,
    help="Shrink frames so the short side has at most PX pixels (smaller frames are not enlarged).",
)
@click.option("--upscale", is_flag=True, help="With --short-side: also enlarge smaller frames to PX.")
@click.option("--prompt", cls=_ListedOption, listing=prompt_help, help="Prompt template name.")
@click.option(
    "--input",
    "input",
    type=click.Choice(["frames", "video"]),
    help="What the model is shown: sampled frames (default), or the video itself where the backend "
    "takes it: the window cut and re-encoded at the --frames rate for openai-compatible: servers "
    "(--method-arg video_url=file sends a file:// URL), the file with offsets for gemini:.",
)
@click.option(
    "--subtitles",
    type=click.Choice(["on", "off"]),
    help="Show the sample's subtitle cues in the prompt, or not (default: the benchmark's protocol); "
    "e.g. Video-MME's two settings.",
)
@click.option(
    "--out", type=click.Path(file_okay=False, path_type=Path), help="Run folder (default runs/...)."
)
@concurrency_option
@click.option("--limit", type=click.IntRange(1), help="Only the first N samples.")
@click.option("--new-run", is_flag=True, help="Start a fresh run folder when the config changed.")
@click.option(
    "--keep-errors",
    is_flag=True,
    help="Resuming keeps samples that ended in an error instead of retrying them.",
)
@click.option(
    "--errors-as-wrong", is_flag=True, help="Count failed MCQ samples as wrong (the strict number)."
)
@click.option(
    "--engine",
    type=click.Choice(["local", "ray"]),
    default="local",
    show_default=True,
    help="local: asyncio in this process; ray: samples as Ray tasks.",
)
@click.option("--ray-address", help="Ray cluster to use with --engine ray (default: a local instance).")
@click.option(
    "--no-frame-cache",
    "frame_cache",
    flag_value=False,
    default=None,
    help="Keep no encoded frames in the frame store of the cache folder (frames are still decoded "
    "once per run).",
)
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
@click.option(
    "--judge-arg",
    "judge_arg",
    multiple=True,
    metavar="[NAME.]KEY=VALUE",
    help="A generation setting of a judge's model (repeatable); without NAME, of every judge's. One "
    "carrying a key is refused.",
)
@click.option(
    "--reasoning-source",
    type=click.Choice(["reply", "thinking", "both"]),
    help="What judges and object recall read as the model's reasoning: its reply (default), its "
    "separate thinking text, or both.",
)
@judge_batch_options
@time_limit_options
@click.option("--extractor", "extractor_spec", help="Model that reads MCQ replies the rules abstained on.")
@click.option(
    "--rubric-judge", "rubric_spec", help="Model that grades reasoning against reference traces (MiRA)."
)
@set_aside_option
@method_options
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the plan of the run (`vqakit plan`: requests, images, tokens, cost, wall time from one "
    "timed request, limits) and stop: no run folder is written, no other request is sent.",
)
def evaluate(
    bench: str,
    out: Path | None,
    new_run: bool,
    set_aside_bad_lines: bool,
    dry_run: bool,
    **arguments: Any,
) -> None:
    """Run a method over a benchmark and score it.

    BENCH is a folder or a shipped benchmark's name; without --out the run folder is
    runs/<BENCH folder>-<version>-<method>[-<model>]. Everything is checked before the folder is
    written, each model and judge endpoint included (one cheap request each; --no-preflight skips
    it): a mistake is one line and exit 2. Rerunning the same command resumes; a changed
    configuration is refused, naming what differs, unless --new-run. A sample that fails is an
    error with its kind (exit 1; the same command retries it); when an endpoint's last 20 requests
    all failed the same way (refused, timed out, 404, 5xx) the run stops, keeping every finished
    answer. Ctrl-C keeps them too (exit 130)."""
    from vqakit.extras import MissingExtra
    from vqakit.methods import MethodSetupError
    from vqakit.models import PreflightError
    from vqakit.runner import (
        RunConfigError,
        RunInterrupted,
        RunLockedError,
        RunSetupError,
        RunStopped,
        evaluate,
    )

    preflight = arguments.pop("preflight")
    settings = run_settings(bench, arguments)
    if dry_run:
        from vqakit.cli.plan import print_plan

        sys.exit(print_plan(settings, out, None, timing=True))
    with progress() as display:

        def done(config: Any, outcome: Any) -> None:
            display.close()  # the bar goes before the summary line is printed
            click.echo(accuracy_line(config.method, outcome))
            set_aside_line(outcome.folder, outcome.results)

        try:
            outcomes = evaluate(
                settings,
                out,
                new_run=new_run,
                on_notes=lambda notes: [click.echo(note) for note in notes],
                on_start=lambda config, folder: display(0, None, 0, config.method),
                on_progress=lambda seen: display(
                    seen.done, seen.total, seen.errors, None, seen.not_applicable
                ),
                on_done=done,
                set_aside_bad_lines=set_aside_bad_lines,
                preflight=preflight,
            )
        except (MethodSetupError, RunSetupError, MissingExtra, PreflightError) as error:
            raise click.UsageError(str(error)) from None
        except (RunConfigError, RunLockedError, ValueError) as error:
            raise click.ClickException(str(error)) from None
        except RunInterrupted as stopped:
            display.close()
            click.echo(str(stopped), err=True)
            sys.exit(INTERRUPTED_EXIT)
        except RunStopped as stopped:
            display.close()
            click.echo(str(stopped), err=True)
            sys.exit(1)
    for outcome in outcomes:
        for name in outcome.unused_judges:
            click.echo(
                f"warning: --judge {name} was not used by {outcome.folder}: none of its answers is one "
                f"judge {name} grades (a baseline gives no replies to judge)",
                err=True,
            )
    summary = error_summary(outcomes)
    if summary:
        click.echo(summary, err=True)
    pending = [outcome for outcome in outcomes if outcome.judgments_pending]
    for outcome in pending:
        from vqakit.runner import JUDGE_BATCHES

        click.echo(
            f"{outcome.judgments_pending} judgment(s) wait on provider batches (see "
            f"{outcome.folder / JUDGE_BATCHES}); rerun the same command to collect them",
            err=True,
        )
    if pending:
        sys.exit(PENDING_EXIT)
    if summary:
        sys.exit(1)
