"""`vqakit report`: rewrite run folders' scores and report from their files, calling nothing."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import set_aside_line, set_aside_option


@click.command()
@click.argument(
    "runs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@set_aside_option
def report(runs: tuple[Path, ...], set_aside_bad_lines: bool) -> None:
    """Rewrite runs' scores and reports from their files.

    Regenerate scores.jsonl, results.json, report.html and the sample pages of each run in
    RUNS from what the folder holds. No model or judge is called: a judgment that is missing
    stays missing and is reported as such (`vqakit score RUN` grades it, `vqakit eval` with the
    same arguments also resumes the run). A line of the run's logs that cannot be read stops
    it with exit 1, naming the line (see --set-aside-bad-lines)."""
    from vqakit.runner import RunLockedError, RunSetupError, report_run
    from vqakit.runs import REPORT, RunFolderError
    from vqakit.scoring import errors_text, headline_of, headline_text

    for folder in runs:
        try:
            results = report_run(
                folder,
                on_note=lambda note: click.echo(note, err=True),
                set_aside_bad_lines=set_aside_bad_lines,
            )
        except (RunFolderError, RunLockedError, RunSetupError) as error:
            raise click.ClickException(str(error)) from None
        numbers = "; ".join(headline_text(entry) for entry in headline_of(results)) or "nothing scored"
        click.echo(f"{folder}: {numbers} -> {folder / REPORT}")
        errors = errors_text([results])
        if errors:
            click.echo(f"{folder}: {errors}", err=True)
        set_aside_line(folder, results)
        missing = results.get("judgments_missing") or {}
        if missing:
            listed = ", ".join(f"{name} {count}" for name, count in missing.items())
            click.echo(
                f"{folder}: {sum(missing.values())} judgment(s) missing ({listed}), reported as not "
                "judged yet; `vqakit score` grades them",
                err=True,
            )
