"""`vqakit score`: score run folders as they stand, without running their method."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import set_aside_line, set_aside_option


@click.command()
@click.argument(
    "folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@set_aside_option
def score(folders: tuple[Path, ...], set_aside_bad_lines: bool) -> None:
    """Score runs as they stand (judges, then scores).

    Score each run in FOLDERS again from its predictions: the run's judges grade what they
    have not graded, then scores.jsonl, results.json and report.html are rewritten. This is how
    a participant's run from `vqakit studio` is scored before they answered every question. Exits 1
    when a judge failed on a sample (the same command grades it again)."""
    from vqakit.runner import RunLockedError, RunSetupError, score_run
    from vqakit.runs import RunFolderError
    from vqakit.scoring import errors_text

    failed = False
    for folder in folders:
        try:
            results = score_run(
                folder,
                on_note=lambda note: click.echo(note, err=True),
                set_aside_bad_lines=set_aside_bad_lines,
            )
        except (RunFolderError, RunLockedError, RunSetupError) as error:
            raise click.ClickException(str(error)) from None
        mcq = results.get("mcq") or {}
        open_ended = results.get("open_ended") or {}
        parts = []
        if mcq.get("n"):
            parts.append(f"MCQ {100 * mcq['accuracy']:.1f}% on {mcq['n']}")
        if open_ended.get("n"):
            parts.append(f"open-ended {100 * open_ended['accuracy']:.1f}% on {open_ended['n']} judged")
        click.echo(f"{folder}: {', '.join(parts) or 'nothing scored'}")
        set_aside_line(folder, results)
        judges_failed = errors_text([results], judges_only=True)
        if judges_failed:
            click.echo(f"{folder}: {judges_failed}", err=True)
            failed = True
    if failed:
        raise SystemExit(1)
