"""`vqakit import movierecapsqa-answers`: published MovieRecapsQA answers (the official response
JSONL, or a CSV of question id and answer) as a run over a benchmark, scored by the claim judges."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from vqakit.cli._options import (
    PENDING_EXIT,
    concurrency_option,
    judge_batch_options,
    judge_batch_settings,
    key_values,
    model_settings,
)

CLAIM_JUDGES = ("claims", "factuality", "relevance", "coherence")


def claim_judges(values: tuple[str, ...]) -> dict[str, str]:
    """`--judge SPEC` (every claim judge) and `--judge NAME=SPEC` (one judge) as {name: spec}."""
    found: dict[str, str] = {}
    for value in values:
        name, sep, _ = value.partition("=")
        if not sep or ":" in name:
            found.update(dict.fromkeys(CLAIM_JUDGES, value.strip()))
        else:
            found.update(key_values((value,), "--judge"))
    return found


@click.command()
@click.argument("responses", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "--bench", required=True, help="The benchmark the answers are to (a folder, or a shipped name)."
)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Run folder.")
@click.option("--label", help="The model that wrote the answers, as the report names it.")
@click.option(
    "--judge",
    "judge_values",
    multiple=True,
    metavar="[NAME=]SPEC",
    help="Model of the claim judges: a bare SPEC for claims, factuality, relevance and coherence, "
    "or NAME=SPEC for one of them (repeatable).",
)
@click.option(
    "--judge-arg",
    "judge_arg",
    multiple=True,
    metavar="[NAME.]KEY=VALUE",
    help="A generation setting of a judge's model (repeatable); without NAME, of every judge's.",
)
@judge_batch_options
@concurrency_option
def movierecapsqa_answers(
    responses: Path,
    bench: str,
    out: Path,
    label: str | None,
    judge_values: tuple[str, ...],
    judge_arg: tuple[str, ...],
    concurrency: int,
    **batch_arguments: Any,
) -> None:
    """Import published MovieRecapsQA answers as a run.

    Import RESPONSES (official JSONL: video_id, segment_id, question_id, question,
    model_response[, question_idx]; or a CSV of question id and answer) as a run over BENCH in
    --out, scored by the judges given. Answers that match no question, and questions without an
    answer, are listed (and kept in <out>/import.json). Rerunning the same command resumes."""
    from vqakit.runner import RunConfigError, RunLockedError, RunSetupError
    from vqakit.scoring import error_kinds, errors_text, interval_kind_text
    from vqakit.systems.movierecapsqa.official import import_answers

    judges = claim_judges(judge_values)
    settings = model_settings({"judge_arg": judge_arg})
    judge_args = {
        name: {**settings["shared_judge_args"], **settings["judge_args"].get(name, {})} for name in judges
    }
    try:
        outcome = import_answers(
            responses,
            bench,
            out,
            label=label,
            judges=judges,
            judge_args=judge_args,
            concurrency=concurrency,
            settings=judge_batch_settings(batch_arguments),
        )
    except RunSetupError as error:
        raise click.UsageError(str(error)) from None
    except (RunConfigError, RunLockedError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    for problem in outcome.unmatched:
        click.echo(
            f"not imported: line {problem['line']} {problem.get('keys', '')} {problem['why']}", err=True
        )
    if outcome.missing:
        listed = ", ".join(outcome.missing[:10]) + (" ..." if len(outcome.missing) > 10 else "")
        click.echo(f"{len(outcome.missing)} question(s) of the benchmark have no answer: {listed}", err=True)
    click.echo(f"imported {outcome.matched} answer(s) ({outcome.format}) -> {outcome.folder}")
    for name in ("factuality", "relevance", "coherence", "claim_aggregate"):
        overall = (outcome.results.get(name) or {}).get("overall") or {}
        if overall.get("mean") is not None:
            low, high = overall["ci95"]
            interval = f"95% CI {low:.2f}-{high:.2f}, {interval_kind_text(overall)}"
            click.echo(f"{name}: {overall['mean']:.2f} [{interval}] on {overall['n']} question(s)")
    judged = error_kinds([outcome.results], judges_only=True)
    answer_errors = {k: n for k, n in error_kinds([outcome.results]).items() if k not in judged}
    if answer_errors:  # the published file holds an error for them: rerunning changes nothing
        listed = ", ".join(f"{kind} {count}" for kind, count in answer_errors.items())
        click.echo(
            f"{sum(answer_errors.values())} answer(s) are errors in the file, not scored ({listed})", err=True
        )
    failed = errors_text([outcome.results], judges_only=True)
    if failed:
        click.echo(failed, err=True)
    pending = outcome.results.get("judgments_pending") or 0
    if pending:
        click.echo(
            f"{pending} judgment(s) wait on provider batches (see {outcome.folder}/judge_batches.jsonl); "
            "rerun the same command to collect them",
            err=True,
        )
        raise SystemExit(PENDING_EXIT)
    if failed:
        raise SystemExit(1)
