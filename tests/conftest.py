"""Shared fixtures: synthetic clips whose frames show their own index (built once per run)."""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # no model hub here: everything is built or packaged
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import sys
from pathlib import Path

import pytest

# test helpers shared across packages: tiny_models (tiny random HF models), fake_server
sys.path.insert(0, str(Path(__file__).parent / "models"))

from vqakit.video import write_index_clip


@pytest.fixture(autouse=True)
def private_cache_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Model calls in tests never read or write the user's response cache."""
    if "VQAKIT_CACHE_DIR" not in os.environ:
        monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path_factory.mktemp("vqakit-cache")))


SHARED_MEDIA = Path(__file__).resolve().parents[1] / "src/vqakit/benchmarks/sample/media"


@pytest.fixture(scope="session")
def index_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 s, 25 fps, 320x240, GOP 50, B-frames: 500 frames numbered 0..499."""
    return write_index_clip(tmp_path_factory.mktemp("clips") / "index.mp4", seconds=20, gop=50)


@pytest.fixture(scope="session")
def ntsc_clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """10 s at 30000/1001 fps, GOP 30: frame times are not round numbers."""
    from fractions import Fraction

    return write_index_clip(
        tmp_path_factory.mktemp("clips") / "ntsc.mp4", seconds=10, fps=Fraction(30000, 1001), gop=30
    )


@pytest.fixture(scope="session")
def media_dir() -> Path:
    return SHARED_MEDIA
