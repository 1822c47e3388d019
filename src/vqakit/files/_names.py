"""Names that are safe as file names.

`slug` keeps the readable part of a text; it is not unique: `q/1`, `q?1` and `q 1` all become
`q_1`, and two long texts ending alike share their last characters. `id_name` is the name of
a file that stands for an id (a sample's clip, a media file named after a video id, a frame
strip): the slug plus a digest of the FULL text, so two different ids never share a file.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Iterable

ID_DIGEST = 12
"""Hex digits of the digest in an `id_name` (48 bits: two ids of a benchmark with the same
slug collide with odds of about n^2 / 2^49, one in a billion for ten thousand of them)."""


def slug(text: str, max_length: int = 60, *, empty: str = "_") -> str:
    """`text` as a file-name part: runs of characters other than letters, digits, `.`, `_` and
    `-` become one `_`; at most the last `max_length` characters are kept (the end of a model
    spec names the model)."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", text)[-max_length:].strip("_")
    return cleaned or empty


def id_digest(text: str, digits: int = ID_DIGEST) -> str:
    """The first `digits` hex digits of the SHA-256 of `text` (UTF-8; lone surrogates kept as
    they are, so every string has one)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:digits]


def id_name(text: str, max_length: int = 60, *, empty: str = "_", digits: int = ID_DIGEST) -> str:
    """The file-name stem of whatever `text` (an id, a key) names: `slug(text)-<digest>`, the
    slug for people and the digest of the whole text, so that distinct texts never share a
    name (`q/1` -> `q_1-2d5ac3...`, `q?1` -> `q_1-8e0f41...`). At most `max_length` + 1 +
    `digits` characters, made of letters, digits, `.`, `_` and `-`, never starting with `.`."""
    readable = slug(text, max_length, empty=empty).lstrip(".") or empty
    return f"{readable}-{id_digest(text, digits)}"


def file_stem(text: str, max_length: int = 100, *, empty: str = "_") -> str:
    """A file-name stem for `text` that keeps it readable where it can: `text` itself when it is
    already a safe name (only letters, digits, `.`, `_`, `-`; at most `max_length` characters;
    not starting with `.`), else `id_name(text)`. Two distinct texts get distinct stems except
    a safe text spelled exactly like another's `id_name`, or two safe texts that differ only in
    case on a case-insensitive file system: `MediaPlan` numbers those apart."""
    if len(text) <= max_length and not text.startswith(".") and slug(text, max_length, empty="") == text:
        return text
    return id_name(text, max_length, empty=empty)


def did_you_mean(word: str, known: Iterable[str], *, cutoff: float = 0.6) -> str:
    """`did you mean 'x'? ` for the known name closest to a mistyped `word` (letter case aside),
    or "" when none is close: the hint every "unknown name" message gives."""
    names = list(dict.fromkeys(known))
    lowered = {name.lower(): name for name in names}
    close = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=cutoff)
    return f"did you mean {lowered[close[0]]!r}? " if close else ""
