from __future__ import annotations

import pytest

from vqakit.video import Resize


@pytest.mark.parametrize(
    ("resize", "size", "expected"),
    [
        (Resize(short_side=448), (1280, 720), (796, 448)),
        (Resize(short_side=448), (720, 1280), (448, 796)),
        (Resize(short_side=480), (320, 240), (320, 240)),  # short_side caps: a small frame stays
        (Resize(short_side=326), (640, 272), (640, 272)),
        (Resize(short_side=480, upscale=True), (320, 240), (640, 480)),  # enlarged only when asked
        (Resize(max_pixels=100_000), (320, 240), (320, 240)),  # the budget never enlarges
        (Resize(max_pixels=50_000), (1920, 1080), (298, 167)),
        (Resize(short_side=720, max_pixels=200_000), (1920, 1080), (596, 335)),
        (Resize(), (33, 17), (33, 17)),
    ],
)
def test_output_size(resize, size, expected):
    width, height = resize.output_size(*size)
    assert (width, height) == expected
    if resize.max_pixels:
        assert width * height <= resize.max_pixels


def test_rejects_nonsense():
    with pytest.raises(ValueError):
        Resize(short_side=0)
    with pytest.raises(ValueError):
        Resize(max_pixels=-5)
