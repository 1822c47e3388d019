"""Output size rules for sampled frames."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Resize:
    """How to size frames: by short side, by a pixel budget, or both (the smaller wins).

    `short_side` caps the shorter side at that many pixels: a larger frame is scaled down to it,
    a smaller one is left as it is (enlarging adds bytes and no detail), unless `upscale` asks
    for exactly that many pixels either way. `max_pixels` only ever shrinks, keeping width x
    height at or under the budget. The aspect ratio is kept; sides are rounded to whole pixels,
    at least 1.
    """

    short_side: int | None = None
    max_pixels: int | None = None
    upscale: bool = False

    def __post_init__(self) -> None:
        if self.short_side is not None and self.short_side < 1:
            raise ValueError(f"short_side must be at least 1 pixel, got {self.short_side}")
        if self.max_pixels is not None and self.max_pixels < 1:
            raise ValueError(f"max_pixels must be at least 1, got {self.max_pixels}")

    def key(self) -> list[int | bool | None]:
        """What identifies this rule in cache keys: every field that changes the pixels."""
        return [self.short_side, self.max_pixels, self.upscale]

    def output_size(self, width: int, height: int) -> tuple[int, int]:
        scale = 1.0
        if self.short_side is not None:
            scale = self.short_side / min(width, height)
            if not self.upscale:
                scale = min(scale, 1.0)
        if self.max_pixels is not None and width * height * scale * scale > self.max_pixels:
            # floor, not round, so that the budget holds
            scale = math.sqrt(self.max_pixels / (width * height))
            return max(1, math.floor(width * scale)), max(1, math.floor(height * scale))
        if scale == 1.0:
            return width, height
        return max(1, round(width * scale)), max(1, round(height * scale))
