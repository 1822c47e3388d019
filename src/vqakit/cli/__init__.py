"""The `vqakit` command line: one module per verb or verb group; each parses its arguments, calls
one library function and prints for people.

Library modules are imported inside each command, so that `vqakit --help` stays fast and
imports no torch, NumPy or PyAV.
"""

from __future__ import annotations

import importlib
import os

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
    ("compare", "compare:compare"),
    ("runs", "runs:runs"),
    ("export", "runs:export"),
    ("table", "runs:table"),
    ("sweep", "sweep:sweep"),
    ("import minerva", "import_minerva:minerva"),
    ("hints", "hints:hints"),
    ("audit", "audit:audit"),
    ("rank", "rank:rank"),
)
GROUPS = {
    "build": "Build a benchmark from annotated videos with model pipelines and quality filters.",
    "import": "Turn a published benchmark's release files into a vqakit benchmark folder.",
    "label": "Add labels to a benchmark's questions with a model, or from a labels file.",
    "cache": "Inspect or empty the response cache and the frame store (VQAKIT_CACHE_DIR, default "
    "~/.cache/vqakit).",
}


class _Group(click.Group):
    """Turns any unexpected exception into one readable line instead of a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception as error:
            if os.environ.get("VQAKIT_DEBUG"):
                raise
            from vqakit.schema import BenchmarkError
            from vqakit.video import VideoError

            if isinstance(error, VideoError | BenchmarkError):
                raise click.ClickException(str(error)) from None
            raise click.ClickException(
                f"{type(error).__name__}: {error} (set VQAKIT_DEBUG=1 for the traceback)"
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


def _add_verbs() -> None:
    groups: dict[str, click.Group] = {}
    for path, target in VERBS:
        head, _, sub = path.partition(" ")
        command = _load(target)
        if not sub:
            main.add_command(command, name=head)
            continue
        if head not in groups:
            groups[head] = click.Group(name=head, help=GROUPS[head])
            main.add_command(groups[head])
        groups[head].add_command(command, name=sub)


_add_verbs()

__all__ = ["VERBS", "main"]
