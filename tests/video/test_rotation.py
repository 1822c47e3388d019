"""Rotation metadata (phone videos): probe reports it and frames come back as a player shows them."""

from __future__ import annotations

from pathlib import Path

from vqakit.schema import Uniform
from vqakit.video import Resize, probe, sample_frames

# 10 frames of 160x96 H.264 with a display matrix of 90 degrees and a white band along the stored
# frame's left edge, written once with PyAV 18's `stream.set_display_rotation(90)`. It is a file
# because the test extra installs lmms-eval, which holds PyAV below 16, where streams cannot
# write a display matrix; reading it is what vqakit does on every PyAV it supports.
ROTATED_90 = Path(__file__).parents[1] / "fixtures/video/rotated90.mp4"


def test_quarter_turn():
    info = probe(ROTATED_90)
    assert info.rotation == 90 and info.display_size == (96, 160)
    image = sample_frames(ROTATED_90, Uniform(1))[0].image
    assert image.shape == (160, 96, 3)
    # turned a quarter counter-clockwise, as FFmpeg's players do: the left edge ends at the bottom
    assert image[-10:, :, 0].mean() > 200 and image[:100, :, 0].mean() < 20
    small = sample_frames(ROTATED_90, Uniform(1), resize=Resize(short_side=48))[0].image
    assert small.shape == (80, 48, 3)
