"""Option labels and the one way options are written into a prompt."""

from __future__ import annotations

import string
from typing import Literal

LETTERS = string.ascii_uppercase  # A..Z: up to 26 options

OptionStyle = Literal["letters", "numbers", "numbered_list"]


def format_options(choices: list[str], style: OptionStyle = "letters", *, letters: str | None = None) -> str:
    """One option per line: `A. text` (letters; `letters` gives other labels, e.g. "ACXZ"),
    `(1) text` (numbers, as Minerva-Ego prints them) or `1. text` (numbered_list, for lists that
    are not answer options to pick from)."""
    labels = LETTERS if letters is None else letters
    if style == "letters" and len(choices) > len(labels):
        raise ValueError(f"{len(choices)} options, but only {len(labels)} labels ({labels})")
    if style == "numbers":
        return "\n".join(f"({i + 1}) {text}" for i, text in enumerate(choices))
    if style == "numbered_list":
        return "\n".join(f"{i + 1}. {text}" for i, text in enumerate(choices))
    return "\n".join(f"{labels[i]}. {text}" for i, text in enumerate(choices))
