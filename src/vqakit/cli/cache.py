"""`vqakit cache stats` and `vqakit cache clear`."""

from __future__ import annotations

import click


@click.command()
def stats() -> None:
    """Entries per model, and the cache file's size."""
    from vqakit.models import ResponseCache

    found = ResponseCache().stats()
    click.echo(f"{found['path']}: {found['entries']} entries, {found['bytes'] / 2**20:.1f} MiB")
    for spec, count in sorted(found["models"].items()):
        click.echo(f"  {count:>8}  {spec}")


@click.command()
@click.option("--model", "spec", help="Only the entries of this model spec.")
def clear(spec: str | None) -> None:
    """Delete cached responses (all, or one model's)."""
    from vqakit.models import ResponseCache

    removed = ResponseCache().clear(spec)
    click.echo(f"removed {removed} entries")
