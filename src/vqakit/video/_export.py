"""Writing sampled frames to a folder as images plus `frames.json` (`vqakit frames`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from vqakit.files import check_out, is_listing_folder, writing_folder
from vqakit.schema import SamplingSpec, sample_times
from vqakit.video._index import frame_index
from vqakit.video._resize import Resize
from vqakit.video._sampling import sample_frames

WRITER = "frames"  # the command, as the folder's marker records it
LEGACY = is_listing_folder("frames.json", ".jpg", ".png")  # written before markers existed


def write_frames(
    path: str | Path,
    spec: SamplingSpec,
    out: str | Path,
    *,
    resize: Resize | None = None,
    exact: bool = True,
    image_format: str = "jpg",
) -> list[dict[str, Any]]:
    """Sample frames of `path`, write them as `frame_NNNN.<format>` into `out` with a
    `frames.json` listing (index, time_s, frame_number, requested_s, file); returns the listing.
    `out` must be new, empty or written by `vqakit frames` before (`OutFolderRefused`)."""
    check_out(out, WRITER, inputs=[path], legacy=LEGACY)  # before the decoding
    sampled = sample_frames(path, spec, resize=resize, exact=exact)
    requested = sample_times(spec, frame_index(path).duration_s).tolist()
    with writing_folder(out, WRITER, inputs=[path], legacy=LEGACY) as folder:
        return _write(folder, sampled, requested, image_format)


def _write(out: Path, sampled: list[Any], requested: list[float], image_format: str) -> list[dict[str, Any]]:
    listing = []
    for i, (frame, asked) in enumerate(zip(sampled, requested, strict=True)):
        name = f"frame_{i:04d}.{image_format}"
        options = {"quality": 95} if image_format == "jpg" else {}
        Image.fromarray(frame.image).save(out / name, **options)
        listing.append(
            {
                "index": i,
                "time_s": round(frame.time_s, 6),
                "frame_number": frame.frame_number,
                "requested_s": round(asked, 6),
                "file": name,
            }
        )
    (out / "frames.json").write_text(json.dumps(listing, indent=1) + "\n", encoding="utf-8")
    return listing
