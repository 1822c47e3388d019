"""Memory grows with the frames returned, not with the video: decoded non-target frames are
dropped at once and only the wanted frames are converted to RGB."""

from __future__ import annotations

import subprocess
import sys

import pytest

from vqakit.video import write_index_clip

PEAK_RSS = """
import resource, sys
from vqakit.schema import Uniform
from vqakit.video import Resize, sample_frames
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
frames = sample_frames(sys.argv[1], Uniform(256), resize=Resize(short_side=224))
assert len(frames) == 256
print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@pytest.mark.slow
def test_256_frames_from_a_long_clip_stay_small(tmp_path):
    path = write_index_clip(
        tmp_path / "long.mp4", seconds=120, width=640, height=360, gop=250, preset="ultrafast"
    )
    result = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, str(path)], capture_output=True, text=True, check=True
    )
    before_kb, after_kb = (int(v) for v in result.stdout.split())
    frames_mb = 256 * 224 * 398 * 3 / 2**20  # what the caller asked to hold: ~65 MB
    growth_mb = (after_kb - before_kb) / 1024
    assert growth_mb < frames_mb + 150, f"peak RSS grew {growth_mb:.0f} MB for {frames_mb:.0f} MB of frames"
