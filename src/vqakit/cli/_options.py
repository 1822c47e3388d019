"""Options shared by several verbs, and reading `KEY=VALUE` arguments.

Methods own their options and judges are plug-ins, so the command line reaches them with two
generic options: `--method-arg KEY=VALUE` and `--judge NAME=SPEC` (both repeatable). The named
flags that existed before (`--top-clips`, `--window`, `--hints`, `--extractor`,
`--rubric-judge`, ...) stay as aliases of those.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

# alias flag -> method option it sets (the method checks that it has the option)
METHOD_ARG_ALIASES = {
    "index": "index",
    "text_embedder": "text_embedder",
    "image_embedder": "image_embedder",
    "top_clips": "top_clips",
    "window_s": "window_s",
    "shift_s": "shift_s",
    "caption_frames": "caption_frames",
    "approximate": "approximate",
    "hint_style": "style",
    "detector": "detector",
}
# alias flag -> judge it assigns a model to
JUDGE_ALIASES = {"extractor_spec": "extract", "rubric_spec": "rubric", "sufficiency_spec": "sufficiency"}
OPEN_JUDGE = "open"  # what a bare `--judge SPEC` assigns, as before judges had names


def concurrency_option(command: Callable) -> Callable:
    return click.option("--concurrency", type=click.IntRange(1, 1024), default=8, show_default=True)(command)


def set_aside_option(command: Callable | None = None, *, counted_in: str = "results.json") -> Callable:
    """`--set-aside-bad-lines`: the same option on every verb that reads logs (runs' predictions,
    judgments and batch journals, a build's journal, review logs). Without it a complete line
    that cannot be read stops the verb (exit 1) naming each FILE:LINE and why. `counted_in`:
    where the verb counts the lines set aside (`@set_aside_option(counted_in=...)`)."""

    def decorate(command: Callable) -> Callable:
        return click.option(
            "--set-aside-bad-lines",
            "set_aside_bad_lines",
            is_flag=True,
            help="Move log lines that cannot be read (damaged, or edited by hand) into NAME.set-aside.jsonl "
            f"beside their log, where they are kept, listed and counted in {counted_in}, and go on without "
            "them. Without it such a line stops the command, naming each FILE:LINE.",
        )(command)

    return decorate if command is None else decorate(command)


def set_aside_journal(out: Any, writer: str) -> None:
    """A build verb's `--set-aside-bad-lines`: its journal's unreadable lines moved aside, said."""
    from vqakit.builders import set_aside_build_journal

    moved = set_aside_build_journal(out, writer)
    if moved is not None:
        click.echo(str(moved), err=True)


def set_aside_line(folder: Any, results: dict[str, Any]) -> None:
    """Say on stderr how many lines of a run's logs are set aside (results.json `set_aside`)."""
    counts = results.get("set_aside") or {}
    if counts:
        listed = ", ".join(f"{name} {count}" for name, count in counts.items())
        click.echo(
            f"{folder}: {sum(counts.values())} unreadable log line(s) set aside ({listed}), left out of "
            "these results; they are kept in the run folder's *.set-aside.jsonl files",
            err=True,
        )


def engine_options(command: Callable) -> Callable:
    """`--engine local|ray` and `--ray-address`, for the commands whose model calls can run on a
    Ray cluster (the builders' model steps)."""
    options = [
        click.option(
            "--engine",
            type=click.Choice(["local", "ray"]),
            default="local",
            show_default=True,
            help="local: model steps in this process; ray: as tasks on a Ray cluster.",
        ),
        click.option(
            "--ray-address", help="Ray cluster to use with --engine ray (default: a local instance)."
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


class LazyHelpOption(click.Option):
    """An option whose help is written when it is shown (`help_from()`), so that building the
    command line imports nothing it would need (`vqakit --help` stays fast)."""

    def __init__(self, *args: Any, help_from: Callable[[], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.help_from = help_from

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = self.help_from()
        return super().get_help_record(ctx)


def _timeout_help(which: str) -> str:
    from vqakit.models import REQUEST_TIMEOUT_S, TOTAL_TIMEOUT_S

    if which == "request":
        return (
            f"Seconds one model request may take before it fails as a timeout and is retried "
            f"(default {REQUEST_TIMEOUT_S:g}; ?timeout=S in a model's spec sets it for that model)."
        )
    return (
        f"Seconds one model call may take with all its retries (default {TOTAL_TIMEOUT_S:g}; "
        "?total_timeout=S in a spec)."
    )


def time_limit_options(command: Callable) -> Callable:
    """`--request-timeout`, `--total-timeout` (run settings) and `--no-preflight` (popped by the
    command as `preflight`), for the commands that run models over a benchmark."""
    seconds = click.FloatRange(min=0, min_open=True)
    options = [
        click.option(
            f"--{which}-timeout",
            f"{which}_timeout_s",
            cls=LazyHelpOption,
            help_from=lambda which=which: _timeout_help(which),
            type=seconds,
            metavar="SECONDS",
        )
        for which in ("request", "total")
    ]
    options += [
        click.option(
            "--no-preflight",
            "preflight",
            flag_value=False,
            default=True,
            help="Skip the check, before anything is written, that each model and judge endpoint "
            "answers and serves its model (a refused connection, a 404, a refused key, an unknown "
            "model or no answer within seconds otherwise stops the command at once, exit 2).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


PENDING_EXIT = 75  # EX_TEMPFAIL: judgments wait on provider batches; the same command collects them
INTERRUPTED_EXIT = 130  # stopped by Ctrl-C (128 + SIGINT), as shells report it


def judge_batch_options(command: Callable) -> Callable:
    """`--judge-batch`, `--judge-batch-poll` and `--judge-batch-wait/--no-judge-batch-wait`."""
    options = [
        click.option(
            "--judge-batch",
            is_flag=True,
            help="Send the judges' calls through their provider's batch API (OpenAI Batch, Anthropic "
            "Message Batches: half price, replies within 24 h); other backends are called one by one. "
            "Resumable.",
        ),
        click.option(
            "--judge-batch-poll",
            "judge_batch_poll_s",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            help="Seconds between polls of a running judge batch (default 30).",
        ),
        click.option(
            "--judge-batch-wait/--no-judge-batch-wait",
            default=True,
            show_default=True,
            help="Wait for the judges' batches to end, or submit them, poll once and stop with exit "
            f"code {PENDING_EXIT} while judgments are pending (rerun the same command to collect them).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def judge_batch_settings(arguments: dict[str, Any]) -> dict[str, Any]:
    """The run settings of the judge-batch options, popped from a command's `arguments`: not
    waiting means batch mode; poll and wait apply to batches an earlier run left outstanding too."""
    batch, poll, wait = (
        arguments.pop("judge_batch"),
        arguments.pop("judge_batch_poll_s"),
        arguments.pop("judge_batch_wait"),
    )
    settings: dict[str, Any] = {"judge_batch_wait": wait}
    if poll is not None:
        settings["judge_batch_poll_s"] = poll
    if batch or not wait:
        settings["judge_batch"] = True
    return settings


def key_values(values: tuple[str, ...], flag: str) -> dict[str, str]:
    """`("a=1", "b=x")` -> {"a": "1", "b": "x"}; a value without `=` is a usage error."""
    found = {}
    for value in values:
        key, sep, rest = value.partition("=")
        if not sep or not key.strip():
            raise click.UsageError(f"{flag} takes KEY=VALUE, got {value!r}")
        found[key.strip()] = rest.strip()
    return found


def judge_assignments(values: tuple[str, ...]) -> dict[str, str]:
    """`--judge NAME=SPEC` values as {name: spec}. A value with no `=` before its first `:` is a
    model spec for the open-ended judge (the form `--judge SPEC` had before)."""
    from vqakit.scoring import judges

    if not values:
        return {}
    names = sorted(judges())
    found: dict[str, str] = {}
    for value in values:
        name, sep, spec = value.partition("=")
        if not sep or ":" in name:
            found[OPEN_JUDGE] = value.strip()
            continue
        if name.strip() not in names:
            from vqakit.files import did_you_mean

            hint = did_you_mean(name.strip(), names)
            raise click.UsageError(
                f"--judge {value}: unknown judge {name.strip()!r}; {hint}known: {', '.join(names)}"
            )
        found[name.strip()] = spec.strip()
    return found


def method_and_judge_settings(arguments: dict[str, Any]) -> dict[str, Any]:
    """Pop the method and judge options (generic and aliases) out of a command's keyword
    arguments, as the `method_args` and `judges` of an EvalConfig."""
    method_args: dict[str, Any] = key_values(arguments.pop("method_arg", ()), "--method-arg")
    for flag, option in METHOD_ARG_ALIASES.items():
        value = arguments.pop(flag, None)
        if value not in (None, False):
            method_args[option] = value
    judges = judge_assignments(arguments.pop("judge_values", ()))
    for flag, name in JUDGE_ALIASES.items():
        spec = arguments.pop(flag, None)
        if spec:
            judges[name] = spec
    return {"method_args": method_args, "judges": judges}


def settings_from(arguments: dict[str, Any]) -> dict[str, Any]:
    """The EvalConfig settings a command's keyword arguments give: method and judge options,
    generation settings (judge settings without a name go to every assigned judge), and every
    other option that was given."""
    settings = {**method_and_judge_settings(arguments), **model_settings(arguments)}
    shared = settings.pop("shared_judge_args")
    for name in settings["judges"]:
        merged = {**shared, **settings["judge_args"].get(name, {})}
        if merged:
            settings["judge_args"][name] = merged
    given = {key: value for key, value in arguments.items() if value not in (None, False)}
    return {**settings, **given}


def method_options(command: Callable) -> Callable:
    """`--method-arg` and the retrieval methods' named flags (aliases of method options)."""
    options = [
        click.option(
            "--method-arg",
            "method_arg",
            multiple=True,
            metavar="KEY=VALUE",
            help="An option of the method (repeatable); `vqakit methods` lists each method's options. "
            "One carrying a key is refused: arguments are stored with the run.",
        ),
        click.option(
            "--index", "index", help="Index folder (default: the benchmark's, in the vqakit cache)."
        ),
        click.option(
            "--text-embedder",
            help="Passage/description embedder: minilm (default) or sentence-transformers:X.",
        ),
        click.option(
            "--image-embedder", help="Clip frame embedder, clip:<folder or hub id>; default: the index's."
        ),
        click.option("--top-clips", type=click.IntRange(1), help="Clips retrieved per question (default 5)."),
        click.option(
            "--window",
            "window_s",
            type=click.FloatRange(min=0, min_open=True),
            help="rag+localize window / rag+split piece, seconds (default 5).",
        ),
        click.option(
            "--shift",
            "shift_s",
            type=click.FloatRange(min=0),
            help="rag+localize: seconds a before/after cue moves the window (default 1).",
        ),
        click.option(
            "--caption-frames", type=click.IntRange(1), help="Frames per retrieved clip (default 15)."
        ),
        click.option("--approximate", is_flag=True, help="Approximate (IVF) search instead of exact."),
        click.option("--fallback", help="Model asked when --model refuses or replies empty."),
        click.option(
            "--sufficiency-judge",
            "sufficiency_spec",
            help="Model judging Y/N whether the gold clip's description holds the question's event "
            "(= --judge sufficiency=SPEC).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def model_settings(arguments: dict[str, Any]) -> dict[str, Any]:
    """Pop `--model-arg` and `--judge-arg` out of a command's keyword arguments as the
    `model_args` and `judge_args` of an EvalConfig (values are checked by the models' settings).
    A judge argument without `NAME.` applies to every judge the command assigns."""
    model_args = key_values(arguments.pop("model_arg", ()), "--model-arg")
    judge_args: dict[str, dict[str, Any]] = {}
    shared: dict[str, Any] = {}
    for key, value in key_values(arguments.pop("judge_arg", ()), "--judge-arg").items():
        name, dot, setting = key.partition(".")
        if dot:
            judge_args.setdefault(name, {})[setting] = value
        else:
            shared[key] = value
    return {"model_args": model_args, "judge_args": judge_args, "shared_judge_args": shared}
