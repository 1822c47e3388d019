"""A user's price table for `vqakit plan` (`--prices FILE`, or `$VQAKIT_PRICES`): US dollars per
million input and output tokens, by model spec. vqakit ships none: prices change, and a copied
number would be presented as truth.

    # prices.yaml (from each provider's pricing page, on the day you copied them)
    openai:gpt-4o-mini: {input: 0.15, output: 0.60}
    "anthropic:claude-*": {input: 3.00, output: 15.00}

A key is a model spec (the settings after `?` are ignored) or a pattern with `*`; the first key
that matches, in the file's order, gives the price.
"""

from __future__ import annotations

import fnmatch
import os
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from vqakit.files import InputError, read_yaml

PRICES_VARIABLE = "VQAKIT_PRICES"


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: float = Field(ge=0)  # dollars per million input tokens
    output: float | None = Field(default=None, ge=0)  # dollars per million output tokens


@dataclass(frozen=True)
class PriceTable:
    path: Path
    prices: list[tuple[str, Price]]

    def price(self, spec: str) -> tuple[str, Price] | None:
        """(the key that matched, its price) for a model spec, or None."""
        bare = spec.split("?", 1)[0]
        return next(((key, p) for key, p in self.prices if fnmatch.fnmatchcase(bare, key)), None)


def read_prices(path: str | Path | None = None) -> PriceTable | None:
    """The price table at `path`, else at `$VQAKIT_PRICES`, else None. `InputError` naming the
    file (and the entry) for one that cannot be read."""
    chosen = path or os.environ.get(PRICES_VARIABLE)
    if not chosen:
        return None
    chosen = Path(chosen)
    data = read_yaml(chosen)
    if not isinstance(data, dict) or not data:
        raise InputError(f"{chosen}: expected a mapping of model spec -> {{input: ..., output: ...}}")
    prices = []
    for key, value in data.items():
        try:
            prices.append((str(key), Price.model_validate(value)))
        except ValidationError as error:
            problem = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'price'}: {e['msg']}" for e in error.errors()
            )
            raise InputError(f"{chosen}: {key}: {problem} (dollars per million tokens)") from None
    return PriceTable(chosen, prices)
