"""The one error type the video layer raises for bad media."""

from __future__ import annotations

import re
from pathlib import Path

_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029]")


def _one_line(text: str) -> str:
    return _LINE_BREAKS.sub(lambda match: repr(match[0])[1:-1], text)


class VideoError(Exception):
    """A video (or subtitle file) cannot be used; the message starts with the file's path and is
    one line (control characters and line breaks in the path or in FFmpeg's words are escaped)."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(_one_line(f"{self.path}: {problem}"))
