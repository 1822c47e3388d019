"""The `vqakit` command line: one module per verb or verb group; each parses its arguments, calls
one library function and prints for people.

A verb's module is imported when the verb is used (or listed by a help page), and library
modules inside each command, so that a command imports only what it needs: `vqakit --help`
imports no torch, NumPy or PyAV, and `vqakit eval` none of the other verbs.
"""

from __future__ import annotations

import importlib
import inspect
import os
from typing import Any

import click

from vqakit import __version__

# The one list of verbs: (command path, "module:function"). A path with a space is a
# subcommand of the group named by its first word (`build`, `import`, `cache`).
VERBS = (
    ("validate", "validate:validate"),
    ("stats", "stats:stats"),
    ("frames", "frames:frames"),
    ("probe", "frames:probe"),
    ("benchmarks", "listing:benchmarks"),
    ("models", "listing:models"),
    ("methods", "listing:methods"),
    ("systems", "listing:systems"),
    ("cache stats", "cache:stats"),
    ("cache clear", "cache:clear"),
    ("extract", "extract:extract"),
    ("index", "index:index"),
    ("build egofact", "build_egofact:egofact"),
    ("build instructionbench", "build_instructionbench:instructionbench"),
    ("import movierecapsqa", "import_movierecapsqa:movierecapsqa"),
    ("import movierecapsqa-answers", "import_answers:movierecapsqa_answers"),
    ("movierecapsqa-results", "export_movierecapsqa:movierecapsqa_results"),
    ("build movierecapsqa", "build_movierecapsqa:movierecapsqa"),
    ("align", "align:align"),
    ("label movierecapsqa", "label_movierecapsqa:movierecapsqa"),
    ("steps", "steps:steps"),
    ("eval", "evaluate:evaluate"),
    ("plan", "plan:plan"),
    ("compare", "compare:compare"),
    ("diff", "diff:diff"),
    ("runs", "runs:runs"),
    ("export", "runs:export"),
    ("export-bench", "export_bench:export_bench"),
    ("table", "runs:table"),
    ("sweep", "sweep:sweep"),
    ("import minerva", "import_minerva:minerva"),
    ("import table", "import_table:table"),
    ("hints", "hints:hints"),
    ("audit", "audit:audit"),
    ("rank", "rank:rank"),
    ("score", "score:score"),
    ("report", "report:report"),
    ("studio", "studio:studio"),
    ("review", "review:review"),
)
# Groups that also hold commands made from a registry, asked for only when the group is used
# (so `vqakit --help` imports no registry): group -> "module:function" giving {name: command}.
GENERATED = {"import": "import_preset:preset_commands"}
GROUPS = {
    "build": "Build a benchmark from annotated videos.\n\nModel pipelines with quality filters; "
    "every step journaled, so the same command resumes.",
    "import": "Turn a published release into a benchmark.\n\nA benchmark's release files as "
    "downloaded, and your videos, to a vqakit benchmark folder.",
    "label": "Label a benchmark's questions with a model.\n\nAdd labels to a benchmark's "
    "questions with a model, or from a labels file.",
    "cache": "Inspect or empty the caches.\n\nThe response cache and the frame store "
    "(VQAKIT_CACHE_DIR, default ~/.cache/vqakit).",
}


_COMMAND = "vqakit.command"  # ctx.meta key: the command being run ("vqakit import minerva")


class _Verbs(click.Group):
    """A group that remembers which command it runs, for the catch-all's message, and says
    which command a mistyped one may be (its generated commands included)."""

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            name, command, rest = super().resolve_command(ctx, args)
        except click.UsageError as error:
            if args and "No such command" in error.message:  # one wording, loaded or not yet
                from vqakit.files import did_you_mean

                hint = did_you_mean(args[0], self.list_commands(ctx))
                said = f"No such command {args[0]!r}; {hint}`{ctx.command_path} --help` lists them."
                raise click.UsageError(said, ctx=error.ctx) from None  # not click's own suggestion too
            raise
        if command is not None:
            ctx.meta[_COMMAND] = f"{ctx.meta.get(_COMMAND, 'vqakit')} {name}"
        return name, command, rest


def _reading(error: BaseException) -> str:
    """`while reading FILE` from the error's notes, else the input read last, else nothing."""
    from vqakit.files import last_read

    notes = [note for note in getattr(error, "__notes__", []) if note.startswith("while reading ")]
    if notes:
        return f"{notes[-1]}; "
    last = last_read()
    return f"last input read: {last}; " if last else ""


class _LazyVerbs(_Verbs):
    """A group whose commands are imported when asked for (`targets`: name -> "module:function")."""

    def __init__(self, *args: Any, targets: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._targets = dict(targets or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._targets})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        if command is None and cmd_name in self._targets:
            command = _load(self._targets[cmd_name])
            command.short_help = command.short_help or summary(command.help)
            self.add_command(command, cmd_name)
        return command


class _Group(_LazyVerbs):
    """Turns any unexpected exception into one readable line instead of a traceback: a clean
    error (bad input, a video or benchmark that cannot be used) as it is; anything else, a bug,
    with the command and the file being read."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:
            raise  # output piped into a reader that stopped (`| head`): click ends quietly, exit 1
        except Exception as error:
            if os.environ.get("VQAKIT_DEBUG"):
                raise
            from vqakit.benchmarks import BenchmarkNotFound
            from vqakit.extras import MissingExtra, missing_extra_line
            from vqakit.files import InputError, OutFolderRefused, one_line
            from vqakit.models import ModelSpecError, redact_secrets
            from vqakit.schema import BenchmarkError
            from vqakit.video import VideoError

            command = ctx.meta.get(_COMMAND, "vqakit")
            if isinstance(
                error, BenchmarkNotFound | ModelSpecError | OutFolderRefused | MissingExtra
            ):  # exit 2
                raise click.UsageError(str(error), ctx=None) from None
            if isinstance(error, ImportError) and (line := missing_extra_line(error, command)):
                raise click.UsageError(line, ctx=None) from None
            if isinstance(error, VideoError | BenchmarkError | InputError):
                raise click.ClickException(str(error)) from None
            said = redact_secrets(one_line(str(error)))  # a bug's text may quote a key
            raise click.ClickException(
                f"{command}: {type(error).__name__}: {said} ({_reading(error)}"
                "set VQAKIT_DEBUG=1 for the traceback)"
            ) from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="vqakit")
def main() -> None:
    """Build, run and score video question-answering benchmarks.

    BENCH arguments take a folder or the name of a shipped benchmark (`sample`).
    """


def _load(target: str) -> click.Command:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(f"vqakit.cli.{module}"), name)


class _GeneratedGroup(_LazyVerbs):
    """A group whose commands also come from a registry (`GENERATED`), listed on first use."""

    def __init__(self, *args: Any, generate: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._generate = generate
        self._generated: dict[str, click.Command] | None = None

    def _extra(self) -> dict[str, click.Command]:
        if self._generated is None:
            module, _, name = self._generate.partition(":")
            self._generated = getattr(importlib.import_module(f"vqakit.cli.{module}"), name)()
        return self._generated

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self._extra()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or self._extra().get(cmd_name)


def summary(help_text: str | None) -> str:
    """A command's one-line summary: the first paragraph of its help, on one line (a docstring
    opens with it, so `vqakit --help` shows it whole, never cut mid-phrase)."""
    first = inspect.cleandoc(help_text or "").split("\n\n", 1)[0]
    return " ".join(first.split())


def _add_verbs() -> None:
    """The verbs, by name: each module is imported when its verb is used (`_LazyVerbs`)."""
    groups: dict[str, dict[str, str]] = {}
    for path, target in VERBS:
        head, _, sub = path.partition(" ")
        if not sub:
            main._targets[head] = target  # type: ignore[attr-defined]
        else:
            groups.setdefault(head, {})[sub] = target
    for head, targets in groups.items():
        if head in GENERATED:
            group: click.Group = _GeneratedGroup(
                name=head, help=GROUPS[head], generate=GENERATED[head], targets=targets
            )
        else:
            group = _LazyVerbs(name=head, help=GROUPS[head], targets=targets)
        group.short_help = summary(GROUPS[head])
        main.add_command(group)


_add_verbs()

__all__ = ["VERBS", "main"]
