"""Fixtures of the table importer's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


@pytest.fixture
def videos(tmp_path: Path, media_dir: Path) -> Path:
    """A --videos folder: bikes.mp4 and world.mp4, with subtitles for world only."""
    folder = tmp_path / "videos"
    folder.mkdir()
    for name in ("bikes.mp4", "world.mp4"):
        shutil.copy(media_dir / name, folder / name)
    shutil.copy(media_dir / "s1.srt", folder / "world.srt")
    return folder
