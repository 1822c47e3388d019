"""The media checks `vqakit validate` runs, backed by the video layer."""

from __future__ import annotations

from pathlib import Path

from PIL import Image

from vqakit.video import probe, read_subtitles


class VideoMediaChecker:
    """Implements `schema.MediaChecker` with PyAV and Pillow."""

    def video_duration(self, path: Path) -> float:
        return probe(path).duration_s

    def check_subtitles(self, path: Path) -> None:
        read_subtitles(path)

    def check_image(self, path: Path) -> None:
        with Image.open(path) as image:
            image.verify()
