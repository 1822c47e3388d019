"""Write the small synthetic videos the offline examples of docs/ build from (docs/try-offline.md).

Run from the repository root:  python scripts/make_example_videos.py instructionbench ib-videos
(or `egofact`). Each video is a clip whose frames draw their own number, at the length and
frame rate the example's annotations expect; nothing is downloaded. The recorded replies under
docs/examples/ were made from builds over exactly these videos.
"""

from __future__ import annotations

import sys
from pathlib import Path

# example -> {file under the output folder: (seconds, frames per second)}
VIDEOS = {
    "instructionbench": {
        "yc_pasta.mp4": (30, 2),  # annotated as 40 s: the build cuts the window at 30 s
        "hr_plane.mp4": (30, 2),
        "gs_kitchen.mp4": (480, 1),
        "ks_bike.mp4": (290, 1),
        "table/tb_plant.mp4": (20, 2),  # found at any depth
    },
    "egofact": {"bikeA.mp4": (60, 5), "bikeB.mp4": (60, 5), "carA.mp4": (60, 5), "short.mp4": (20, 5)},
}
SIZES = {"instructionbench": (96, 64, 10), "egofact": (96, 64, 25)}  # width, height, keyframe interval


def write_example_videos(example: str, out: str | Path) -> list[Path]:
    """The example's videos under `out` (an existing file is left as it is)."""
    from vqakit.video import write_index_clip

    width, height, gop = SIZES[example]
    written = []
    for name, (seconds, fps) in VIDEOS[example].items():
        path = Path(out) / name
        if not path.is_file():
            path.parent.mkdir(parents=True, exist_ok=True)
            write_index_clip(path, seconds=seconds, fps=fps, width=width, height=height, gop=gop)
        written.append(path)
    return written


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in VIDEOS:
        sys.exit(f"usage: python scripts/make_example_videos.py {{{','.join(VIDEOS)}}} OUT_FOLDER")
    for path in write_example_videos(sys.argv[1], sys.argv[2]):
        print(path)
