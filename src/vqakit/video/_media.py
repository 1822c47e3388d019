"""The media checks `vqakit validate` runs (`schema.MediaChecker`), backed by PyAV and Pillow."""

from __future__ import annotations

from pathlib import Path

from vqakit.video._probe import probe, remembered_duration
from vqakit.video._subtitles import read_subtitles


class VideoMediaChecker:
    """Implements `schema.MediaChecker` with PyAV and Pillow."""

    def video_duration(self, path: Path) -> float:
        """Duration from the header, after checking that the data reaches the declared end (a
        truncated file whose header is intact opens like a whole one). A version of the file
        (path, size, time) that this process has read whole already (its frames came from the
        frame store, or it built its index) is not opened again: a cached re-run of `eval`
        checks its samples without PyAV."""
        known = remembered_duration(path)
        return known if known is not None else probe(path, check_end=True).duration_s

    def check_subtitles(self, path: Path) -> None:
        read_subtitles(path)

    def check_image(self, path: Path) -> None:
        from vqakit.video._image_files import check_image_file  # Pillow and NumPy: imported when used

        check_image_file(path)  # its size from the header first: no decompression bomb
