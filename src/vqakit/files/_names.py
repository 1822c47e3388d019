"""Names that are safe as file names."""

from __future__ import annotations

import re


def slug(text: str, max_length: int = 60, *, empty: str = "_") -> str:
    """`text` as a file-name part: runs of characters other than letters, digits, `.`, `_` and
    `-` become one `_`; at most the last `max_length` characters are kept (the end of a model
    spec names the model)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", text)[-max_length:].strip("_")
    return cleaned or empty
