"""`vqakit diff`: why two runs' numbers differ."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
@click.argument("run_a", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("run_b", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the whole difference as JSON.")
@click.option(
    "--show", default=10, show_default=True, type=click.IntRange(min=0), help="Samples listed per cause."
)
def diff(run_a: Path, run_b: Path, as_json: bool, show: int) -> None:
    """Explain why two runs' numbers differ.

    Prints both runs' headline numbers; every setting that differs, in words (frames and their
    times, pixels and encoding, prompt text, generation settings, answer reading, judges and
    their prompts, the benchmark's content hash and version, vqakit and dependency versions);
    how many samples were sent other frames, pixels or text, or got another reply; then the
    samples whose outcome differs (right in one run only, scored in one only, another judge
    score), grouped by the first thing that differed for them: a failure, the gold answer,
    retrieval, the frames sent, their pixels, the request text, the reply, the reading of the
    same reply, or a judgment of it. Reads only the two run folders, so runs made on other
    machines, or imported answers, compare as they are.
    """
    from vqakit.runner import diff_lines, diff_runs
    from vqakit.runs import RunFolderError

    try:
        result = diff_runs(run_a, run_b)
    except RunFolderError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(result, indent=1))
        return
    for line in diff_lines(result, show):
        click.echo(line)
