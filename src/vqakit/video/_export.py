"""Writing sampled frames to a folder as images plus `frames.json` (`vqakit frames`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from PIL import Image

from vqakit.schema import SamplingSpec, sample_times
from vqakit.video._index import frame_index
from vqakit.video._resize import Resize
from vqakit.video._sampling import sample_frames


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
    `frames.json` listing (index, time_s, frame_number, requested_s, file); returns the listing."""
    sampled = sample_frames(path, spec, resize=resize, exact=exact)
    requested = sample_times(spec, frame_index(path).duration_s).tolist()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
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
