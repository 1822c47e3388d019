"""`vqakit benchmarks`, `models`, `methods` and `systems`: what is available."""

from __future__ import annotations

import click


@click.command()
def benchmarks() -> None:
    """List the benchmarks shipped with vqakit."""
    from vqakit.benchmarks import BUILT_IN_NAMES, load_benchmark

    for name in BUILT_IN_NAMES:
        card = load_benchmark(name).card
        click.echo(f"{name}\t{card.version}\t{card.description.splitlines()[0]}")


@click.command()
def models() -> None:
    """List the model spec forms, with an example each.

    List the model spec forms (plug-in backends' too), with one example each."""
    from vqakit.models import SPEC_FORMS
    from vqakit.plugins import backend_failures

    for form, example, meaning in SPEC_FORMS:
        click.echo(f"{form}\n    e.g. {example}\n    {meaning}")
    for name, why in backend_failures.items():
        click.echo(f"could not load model backend {name}: {why}", err=True)


@click.command()
def methods() -> None:
    """List the methods with their options.

    List the methods, with their options (set with --method-arg KEY=VALUE) and defaults."""
    from vqakit.methods import methods as registered

    for name, found in sorted(registered().items()):
        needs = "needs --model" if found.needs_model else "no model"
        click.echo(f"{name}  ({needs})\n    {found.summary}")
        for option, field in found.options.model_fields.items():
            click.echo(f"    --method-arg {option}=...  (default {field.default!r})")


@click.command()
def systems() -> None:
    """List the benchmark systems and their parts.

    List the benchmark systems: their methods, judges and commands."""
    from vqakit.plugins import failures
    from vqakit.scoring import judges
    from vqakit.systems import systems as registered

    for name, system in sorted(registered().items()):
        click.echo(f"{name}: {system.title}\n    paper: {system.reference}")
        if system.link:
            click.echo(f"    link: {system.link}")
        if system.notes:
            click.echo(f"    protocol notes: {system.notes} (in the vqakit repository)")
        for label, items in (
            ("methods", system.methods),
            ("judges", system.judges),
            ("commands", system.commands),
        ):
            if items:
                click.echo(f"    {label}: {', '.join(items)}")
    claimed = {name for system in registered().values() for name in system.judges}
    click.echo("judges of every benchmark: " + ", ".join(name for name in judges() if name not in claimed))
    for name, why in failures.items():
        click.echo(f"could not load system {name}: {why}", err=True)
