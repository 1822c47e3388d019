"""The one error type the video layer raises for bad media."""

from __future__ import annotations

from pathlib import Path


class VideoError(Exception):
    """A video (or subtitle file) cannot be used; the message starts with the file's path."""

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")
