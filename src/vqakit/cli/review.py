"""`vqakit review BENCH` (progress and agreement of the people reviewing a benchmark) and
`vqakit review apply BENCH` (the reviewed version as a new benchmark folder)."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import set_aside_option


class _ReviewGroup(click.Group):
    """`vqakit review BENCH` runs `progress`; `vqakit review apply ...` its subcommand."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["progress", *args]
        return super().parse_args(ctx, args)


def _number(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _note(text: str) -> None:
    click.echo(text, err=True)


def _set_aside_said(counts: dict[str, int]) -> None:
    """Say on stderr how many lines of the review logs are set aside (not counted)."""
    if counts:
        listed = ", ".join(f"{name} {count}" for name, count in sorted(counts.items()))
        _note(
            f"{sum(counts.values())} unreadable review log line(s) set aside ({listed}), not counted; "
            "they are kept in <person>.set-aside.jsonl beside each log"
        )


@click.group(cls=_ReviewGroup)
def review() -> None:
    """People's review of a benchmark: progress, apply.

    People's review of a benchmark in `vqakit studio`: `vqakit review BENCH` prints each
    person's progress and the agreement between people; `vqakit review apply BENCH --policy
    all|any|majority --out NEW` writes the reviewed version."""


@review.command()
@click.argument("bench")
@click.option(
    "--review-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="The review logs (default: <benchmark>/review; ./review/<name> for a shipped benchmark).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the whole summary as JSON: each person, the kappas, and each sample two or more "
    "people reviewed (their votes, the share of pairs agreeing, any adjudication).",
)
@set_aside_option(counted_in="the summary (set_aside)")
def progress(bench: str, review_dir: Path | None, as_json: bool, set_aside_bad_lines: bool) -> None:
    """Each person's review progress and agreement.

    Each person's progress on BENCH, and agreement on the samples two or more people
    reviewed: Cohen's kappa for each pair, Fleiss' kappa for three or more people, and how many
    samples they disagree on (settled by an adjudicator or not). A line of a review log that
    cannot be read stops it (exit 1, naming the file and line: nothing is counted until it is
    mended or set aside; nothing is deleted)."""
    import dataclasses
    import json

    from vqakit.extras import require_extra
    from vqakit.files import InputError
    from vqakit.studio import review_progress

    require_extra("studio", "vqakit review")  # agreement needs statsmodels: said before any work

    try:
        summary, folder = review_progress(
            bench, review_dir, set_aside_bad_lines=set_aside_bad_lines, on_note=_note
        )
    except InputError as error:
        raise click.ClickException(str(error)) from None
    _set_aside_said(summary.set_aside)
    if as_json:
        click.echo(json.dumps({"folder": str(folder), **dataclasses.asdict(summary)}, indent=1))
        return
    click.echo(
        f"{summary.samples} samples; reviewed by someone: {summary.reviewed}; "
        f"by two or more people: {summary.doubly} (decisions in {folder})"
    )
    if not summary.people:
        click.echo("no decisions yet: open the benchmark in `vqakit studio`")
        return
    click.echo(f"{'person':<20}{'reviewed':>10}{'share':>8}{'keep':>7}{'drop':>7}{'edit':>7}  last decision")
    for person in summary.people:
        share = person.reviewed / summary.samples if summary.samples else 0.0
        stale = f" ({person.stale} on samples no longer in it)" if person.stale else ""
        counts = f"{person.reviewed:>10}{100 * share:>7.0f}%{person.keep:>7}{person.drop:>7}{person.edit:>7}"
        click.echo(f"{person.person[:19]:<20}{counts}  {person.last or '-'}{stale}")
    for agreement in summary.agreement:
        click.echo(
            f"{agreement.method}'s kappa ({', '.join(agreement.people)}): {_number(agreement.kappa)} "
            f"on {agreement.n} samples (all agree on {_number(agreement.observed)})"
        )
    if summary.per_sample:
        click.echo(
            f"{summary.disagreements} of the {len(summary.per_sample)} samples reviewed by two or more "
            f"people are decided differently; an adjudicator settled {summary.adjudicated} "
            "(each sample: --json)"
        )


@review.command()
@click.argument("bench")
@click.option(
    "--policy",
    type=click.Choice(["all", "any", "majority"]),
    required=True,
    help="all: a change when every reviewer of a sample made it; any: any drop drops, edits are "
    "applied; majority: what more than half of its reviewers decided.",
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="New folder.")
@click.option(
    "--version",
    "version",
    help="Version of the new benchmark (default: <version>+review, +review.2 for a second review, ...).",
)
@click.option("--review-dir", type=click.Path(file_okay=False, path_type=Path), help="The review logs.")
@click.option(
    "--include-stale",
    is_flag=True,
    help="Also apply decisions made before their sample last changed (listed either way).",
)
@set_aside_option(counted_in="changes.md")
def apply(
    bench: str,
    policy: str,
    out: Path,
    version: str | None,
    review_dir: Path | None,
    include_stale: bool,
    set_aside_bad_lines: bool,
) -> None:
    """Write the reviewed version of a benchmark.

    Write the reviewed version of BENCH to --out: the decisions applied under --policy, the
    card recording the review, changes.md listing every drop and edit with who and why. A
    decision made before its sample last changed (stale) is listed and not applied, unless
    --include-stale. The new folder is built aside and moved into place only once it validates
    (media too). A line of a review log that cannot be read stops it (exit 1, naming the file
    and line), unless --set-aside-bad-lines."""
    from vqakit.extras import require_extra
    from vqakit.schema import BenchmarkError
    from vqakit.studio import apply_review, stale_line

    require_extra("studio", "vqakit review apply")

    try:
        outcome = apply_review(
            bench,
            out,
            policy,  # type: ignore[arg-type]
            review_dir=review_dir,
            version=version,
            include_stale=include_stale,
            set_aside_bad_lines=set_aside_bad_lines,
            on_note=_note,
        )
    except ValueError as error:  # InputError too: a review log line that cannot be read, named
        raise click.ClickException(str(error)) from None
    except BenchmarkError as error:
        why = f"nothing written to {out}: the reviewed version does not validate"
        raise click.ClickException(f"{why}\n{error}") from None
    _set_aside_said(outcome.set_aside)
    click.echo(
        f"{outcome.kept} samples kept ({outcome.edited} edited), {outcome.dropped} dropped, "
        f"{outcome.unapplied} with decisions not applied under --policy {policy}; "
        f"reviewers: {', '.join(outcome.reviewers) or 'none'}"
    )
    if outcome.adjudicated:
        click.echo(f"{len(outcome.adjudicated)} sample(s) settled by an adjudicator: their decision is final")
    if outcome.stale:
        done = "applied (--include-stale)" if include_stale else "not applied (--include-stale applies them)"
        click.echo(f"{len(outcome.stale)} stale decision(s), made before their sample last changed, {done}:")
        for decision in outcome.stale:
            click.echo(f"  {stale_line(decision)}")
    if outcome.gone:
        click.echo(f"{outcome.gone} decision(s) on samples no longer in the benchmark: not applied")
    click.echo(f"-> {outcome.folder} (changes in {outcome.folder / 'changes.md'})")
