"""Fixtures of the table importer's tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml


@pytest.fixture
def videos(tmp_path: Path, media_dir: Path) -> Path:
    """A --videos folder: bikes.mp4 and world.mp4, with subtitles for world only."""
    folder = tmp_path / "videos"
    folder.mkdir()
    for name in ("bikes.mp4", "world.mp4"):
        shutil.copy(media_dir / name, folder / name)
    shutil.copy(media_dir / "s1.srt", folder / "world.srt")
    return folder


@pytest.fixture
def mapping(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """The test module's MAPPING, written as a mapping file."""
    path = tmp_path / "map.yaml"
    path.write_text(yaml.safe_dump(request.module.MAPPING))
    return path
