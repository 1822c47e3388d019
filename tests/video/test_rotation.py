"""Rotation metadata (phone videos): probe reports it and frames come back as a player shows them."""

from __future__ import annotations

import av
import numpy as np

from vqakit.schema import Uniform
from vqakit.video import Resize, probe, sample_frames


def write_rotated(path, degrees: int) -> None:
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=25)
        stream.width, stream.height, stream.pix_fmt = 160, 96, "yuv420p"
        stream.set_display_rotation(degrees)
        for _ in range(10):
            image = np.zeros((96, 160, 3), np.uint8)
            image[:, :20] = 255  # a white band along the stored frame's left edge
            for packet in stream.encode(av.VideoFrame.from_ndarray(image, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)


def test_quarter_turn(tmp_path):
    path = tmp_path / "rotated.mp4"
    write_rotated(path, 90)
    info = probe(path)
    assert info.rotation == 90 and info.display_size == (96, 160)
    image = sample_frames(path, Uniform(1))[0].image
    assert image.shape == (160, 96, 3)
    # turned a quarter counter-clockwise, as FFmpeg's players do: the left edge ends at the bottom
    assert image[-10:, :, 0].mean() > 200 and image[:100, :, 0].mean() < 20
    small = sample_frames(path, Uniform(1), resize=Resize(short_side=48))[0].image
    assert small.shape == (80, 48, 3)
