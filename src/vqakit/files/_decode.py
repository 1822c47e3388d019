"""Bytes of an input file to text: any byte-order mark, any line end, and bytes that are not
UTF-8 kept so that only the record holding them is refused."""

from __future__ import annotations

import codecs
import os
import re
import stat
from pathlib import Path

from vqakit.files._problems import InputError, note_read

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""What ends a line: CR LF, CR or LF (and nothing else: U+2028 inside a JSON string is text)."""

_ESCAPED = re.compile(r"[\udc80-\udcff]")


def read_bytes(path: str | Path) -> bytes:
    """The bytes of a regular file; anything else (missing, a folder, a device, unreadable) is
    an `InputError` naming the file."""
    path = Path(path)
    note_read(path)
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise InputError(f"{path}: is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: is not a regular file")
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        kind = "a broken symbolic link" if os.path.islink(path) else "file not found"
        raise InputError(f"{path}: {kind}") from None
    except InputError:
        raise
    except (OSError, RuntimeError) as error:  # RuntimeError: a symbolic link loop (Python 3.11)
        raise InputError(f"{path}: cannot be read ({getattr(error, 'strerror', None) or error})") from None


def decode(raw: bytes, source: str | Path) -> str:
    """Text of `raw`: a UTF-8 byte-order mark is dropped, UTF-16 with its byte-order mark is
    read as such, and bytes that are not UTF-8 become lone surrogates (U+DC80-U+DCFF, Python's
    `surrogateescape`) for `bad_byte` to find in the record that holds them."""
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16")
        except UnicodeDecodeError as error:
            raise InputError(
                f"{source}: not UTF-16 text after its byte-order mark ({error.reason})"
            ) from None
    return raw.decode("utf-8", "surrogateescape")


def bad_byte(text: str) -> str | None:
    """`not UTF-8 text (byte 0xe9 at column 4)` for the first byte of `text` that `decode`
    could not read, or None."""
    found = _ESCAPED.search(text)
    if found is None:
        return None
    return f"not UTF-8 text (byte {ord(found[0]) - 0xDC00:#04x} at column {found.start() + 1})"


def find_bad_byte(text: str) -> tuple[int, str] | None:
    """(line, `not UTF-8 text (byte 0xe9 at column 4)`) for the first byte of `text` that
    `decode` could not read, or None."""
    found = _ESCAPED.search(text)
    if found is None:
        return None
    line = len(LINE_BREAK.findall(text, 0, found.start())) + 1
    start = max(text.rfind("\n", 0, found.start()), text.rfind("\r", 0, found.start())) + 1
    return line, str(bad_byte(text[start:]))


def read_text(path: str | Path, *, strict: bool = True) -> str:
    """The text of a file (see `decode`). `strict`: a byte that is not UTF-8 is an `InputError`
    naming the file and line; otherwise it is kept for the caller to find (`bad_byte`)."""
    text = decode(read_bytes(path), path)
    if strict and (found := find_bad_byte(text)):
        raise InputError(f"{path}:{found[0]}: {found[1]}")
    return text


def split_lines(text: str) -> list[str]:
    """The lines of `text`, split at CR LF, CR or LF; a last line end opens no empty line."""
    lines = LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines
