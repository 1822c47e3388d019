"""Option labels and the one way options are written into a prompt."""

from __future__ import annotations

from typing import Literal

LETTERS = "ABCDEFGH"

OptionStyle = Literal["letters", "numbers", "numbered_list"]


def format_options(choices: list[str], style: OptionStyle = "letters") -> str:
    """One option per line: `A. text` (letters), `(1) text` (numbers, as Minerva-Ego prints
    them) or `1. text` (numbered_list, for lists that are not answer options to pick from)."""
    if style == "numbers":
        return "\n".join(f"({i + 1}) {text}" for i, text in enumerate(choices))
    if style == "numbered_list":
        return "\n".join(f"{i + 1}. {text}" for i, text in enumerate(choices))
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(choices))
