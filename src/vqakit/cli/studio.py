"""`vqakit studio`: the browser app where people review, annotate and answer benchmarks."""

from __future__ import annotations

from pathlib import Path

import click

from vqakit.cli._options import judge_assignments, model_settings


@click.command()
@click.argument("folders", nargs=-1, required=True)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="Port (0: a free one)."
)
@click.option(
    "--person",
    "reviewers",
    multiple=True,
    metavar="NAME",
    help="A reviewer (review, annotate and answer); each gets a link with their own token (repeatable). "
    "Needed on any host other than loopback.",
)
@click.option(
    "--participant",
    "participants",
    multiple=True,
    metavar="NAME",
    help="A participant of a human baseline: answer mode only, never a gold answer (repeatable).",
)
@click.option(
    "--adjudicator",
    "adjudicators",
    multiple=True,
    metavar="NAME",
    help="Settles the samples reviewers disagree on (adjudicate mode); their decision is final for "
    "`vqakit review apply` (repeatable).",
)
@click.option(
    "--assign",
    type=click.IntRange(1),
    metavar="K",
    help="Give each sample to K of the --person reviewers, balanced, each in an order of their own "
    "(seeded by --seed; recorded in the review folder's assignments.json).",
)
@click.option(
    "--subset",
    type=click.IntRange(1),
    metavar="N",
    help="Participants answer N questions drawn at random (seeded by --seed; recorded in each run).",
)
@click.option(
    "--subset-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Participants answer the questions this file lists (one sample id a line).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --assign and --subset.")
@click.option(
    "--link-days",
    type=click.FloatRange(min=0, min_open=True),
    default=14.0,
    show_default=True,
    help="Links and sessions given now end after this many days.",
)
@click.option(
    "--revoke",
    multiple=True,
    metavar="NAME",
    help="End every link and session NAME was given before (in every studio on this key), then "
    "serve; a NAME also given with --person gets a new link (repeatable).",
)
@click.option(
    "--audit",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="audit.json of `vqakit audit` for the review flags (default: runs/<name>-audit/audit.json).",
)
@click.option(
    "--answer-view",
    type=click.Choice(["frames", "video"]),
    default="frames",
    show_default=True,
    help="What participants see: the frames the protocol sends, or the video window (only where the "
    "card sets human_video).",
)
@click.option(
    "--order",
    type=click.Choice(["shuffled", "benchmark"]),
    default="shuffled",
    show_default=True,
    help="Order of the questions for each participant (shuffled: seeded by their name).",
)
@click.option("--limit", type=click.IntRange(1), help="Participants answer the first N questions.")
@click.option(
    "--judge",
    "judge_values",
    multiple=True,
    metavar="NAME=SPEC",
    help="A judge of the participants' runs, as for `vqakit eval` (repeatable; e.g. open=SPEC).",
)
@click.option(
    "--judge-arg",
    "judge_arg",
    multiple=True,
    metavar="[NAME.]KEY=VALUE",
    help="A generation setting of a judge's model (repeatable).",
)
@click.option(
    "--runs",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Where participants' run folders go (<runs>/<benchmark folder>-<version>-human-<name>).",
)
@click.option(
    "--review-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where review logs go (default: <benchmark>/review; ./review/<name> for a shipped benchmark).",
)
def studio(
    folders: tuple[str, ...],
    host: str,
    port: int,
    reviewers: tuple[str, ...],
    participants: tuple[str, ...],
    adjudicators: tuple[str, ...],
    assign: int | None,
    subset: int | None,
    subset_file: Path | None,
    seed: int,
    link_days: float,
    revoke: tuple[str, ...],
    audit: Path | None,
    answer_view: str,
    order: str,
    limit: int | None,
    judge_values: tuple[str, ...],
    judge_arg: tuple[str, ...],
    runs: Path,
    review_dir: Path | None,
) -> None:
    """Serve benchmarks and runs to people in a browser.

    Serve FOLDERS (benchmarks, runs, or folders of videos to annotate) to people in the
    browser: review (keep / drop / edit, to review/<person>.jsonl), annotate (questions,
    traces and object tracks over a folder of videos), answer (blind, timed human baselines,
    a run folder per participant) and adjudicate (the samples reviewers disagree on). Every
    action is also a JSON endpoint (docs/studio.md). Stops with Ctrl+C."""
    from vqakit.studio import Person, StudioError, StudioSettings, serve

    try:
        people = [Person(name) for name in reviewers] + [Person(name, "participant") for name in participants]
        people += [Person(name, "adjudicator") for name in adjudicators]
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    judges = judge_assignments(judge_values)
    settings = model_settings({"judge_arg": judge_arg})
    judge_args = {
        name: merged
        for name in judges
        if (merged := {**settings["shared_judge_args"], **settings["judge_args"].get(name, {})})
    }
    studio_settings = StudioSettings(
        folders=list(folders),
        host=host,
        port=port,
        people=people,
        audit=audit,
        answer_view=answer_view,  # type: ignore[arg-type]
        order=order,  # type: ignore[arg-type]
        limit=limit,
        judges=judges,
        judge_args=judge_args,
        runs=runs,
        review_dir=review_dir,
        link_days=link_days,
        revoke=list(revoke),
        assign=assign,
        seed=seed,
        subset=subset,
        subset_file=subset_file,
    )

    def ready(address: str, links: list) -> None:
        for name in revoke:
            click.echo(f"revoked every earlier link and session of {name}")
        click.echo(f"vqakit studio at {address} (Ctrl+C stops it)")
        for person, link in links:
            click.echo(f"  {person.name} ({', '.join(person.modes)}): {link}")

    try:
        serve(studio_settings, on_ready=ready)
    except KeyboardInterrupt:
        click.echo("vqakit studio stopped")
    except (StudioError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    except OSError as error:
        raise click.ClickException(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
