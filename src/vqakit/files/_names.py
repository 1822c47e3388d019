"""Names that are safe as file names."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable


def slug(text: str, max_length: int = 60, *, empty: str = "_") -> str:
    """`text` as a file-name part: runs of characters other than letters, digits, `.`, `_` and
    `-` become one `_`; at most the last `max_length` characters are kept (the end of a model
    spec names the model)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", text)[-max_length:].strip("_")
    return cleaned or empty


def did_you_mean(word: str, known: Iterable[str], *, cutoff: float = 0.6) -> str:
    """`did you mean 'x'? ` for the known name closest to a mistyped `word` (letter case aside),
    or "" when none is close: the hint every "unknown name" message gives."""
    names = list(dict.fromkeys(known))
    lowered = {name.lower(): name for name in names}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return f"did you mean {lowered[close[0]]!r}? " if close else ""
