"""Which requests of a run exceed what their provider takes, and what to change: the refusals of
`vqakit plan` and of `eval` before its first request. Each names the limit, where it is
published (or that the server reported it), the largest request and its sample, and a setting
that fits (`--frames`, `--short-side`)."""

from __future__ import annotations

import math
from typing import Any

from vqakit.runner._config import EvalConfig
from vqakit.schema import Fps, Protocol, Uniform, parse_sampling

SHORT_SIDES = (448, 392, 336, 280, 224, 168, 112)  # candidates, multiples of 28 and of 8


def _fewer_frames(frames: str, most: int) -> str:
    spec = parse_sampling(frames)
    if most < 1:
        return "the text alone is over it (use a shorter prompt or another model)"
    if isinstance(spec, Uniform):
        return f"--frames uniform:{most}"
    if isinstance(spec, Fps):
        return f"--frames fps:{spec.fps:g},max={most}"
    return f"--frames with at most {most} frames a request"


def _megabytes(count: int) -> str:
    return f"{count / 2**20:.1f} MB"


def refusals(found: Any, protocol: Protocol, config: EvalConfig) -> list[str]:
    """The refusals of a counted run (`_estimate.RunEstimate`); empty when every request fits."""
    model, limits, found_refusals = config.model, found.limits, []
    most_images = max(found.per_request, default=0)
    if limits is not None and limits.images is not None and most_images > limits.images:
        sample = found.largest.sample if found.largest and found.largest.images == most_images else "a sample"
        fix = _fewer_frames(protocol.frames, limits.images)
        found_refusals.append(
            f"{model}: a request may carry at most {limits.images} images ({limits.source}); "
            f"the largest here has {most_images} ({sample}, --frames {protocol.frames}): use {fix}"
        )
    heaviest = found.heaviest
    if (
        limits is not None
        and limits.request_bytes
        and heaviest is not None
        and heaviest.bytes > limits.request_bytes
    ):
        from vqakit.runner._estimate import BYTES_PER_PIXEL

        def small_enough(native: Any, images: int, text: int, size: tuple[int, int]) -> bool:
            return images * size[0] * size[1] * BYTES_PER_PIXEL * 4 / 3 < limits.request_bytes

        side = _fitting_side(found, protocol, small_enough)
        frames = max(1, math.floor(heaviest.images * limits.request_bytes / heaviest.bytes))
        fixes = [*([f"--short-side {side}"] if side else []), _fewer_frames(protocol.frames, frames)]
        found_refusals.append(
            f"{model}: a request may be at most {_megabytes(limits.request_bytes)} ({limits.source}); the "
            f"largest here is about {_megabytes(heaviest.bytes)} ({heaviest.sample}, "
            f"{heaviest.images} images at {_size(heaviest.size)}): use {' or '.join(fixes)}"
        )
    largest = found.largest
    if found.context and largest is not None and largest.tokens is not None:
        reserve = int((config.model_args or {}).get("max_tokens") or 0)
        if largest.tokens + reserve > found.context:
            found_refusals.append(_context_refusal(found, protocol, config, reserve))
    return found_refusals


def _size(size: tuple[int, int] | None) -> str:
    return f"{size[0]}x{size[1]}" if size else "?"


def _sent(native: tuple[int, int], side: int, protocol: Protocol, max_side: int | None) -> tuple[int, int]:
    """The size frames of `native` size reach the model at with --short-side `side`."""
    from vqakit.models import shrunk_size
    from vqakit.video import Resize

    return shrunk_size(*Resize(short_side=side, upscale=protocol.upscale).output_size(*native), max_side)


def _fitting_side(found: Any, protocol: Protocol, fits: Any) -> int | None:
    """The largest candidate --short-side below the current one at which `fits(native, images,
    text, sent size)` holds for every shape of request the run has."""
    current = protocol.short_side or max((min(native) for native in found.shapes), default=0)
    for side in SHORT_SIDES:
        if side >= current:
            continue
        sizes = {native: _sent(native, side, protocol, found.max_side) for native in found.shapes}
        if all(fits(native, most[0], most[1], sizes[native]) for native, most in found.shapes.items()):
            return side
    return None


def _context_refusal(found: Any, protocol: Protocol, config: EvalConfig, reserve: int) -> str:
    largest, rule = found.largest, found.rule
    room = found.context - reserve

    def within(native: Any, images: int, text: int, size: tuple[int, int]) -> bool:
        return text + images * rule.tokens(*size) <= room

    fixes = []
    side = _fitting_side(found, protocol, within)
    if side is not None:
        fixes.append(f"--short-side {side}")
    frames = [
        (room - text) // rule.tokens(*_sent(native, protocol.short_side, protocol, found.max_side))
        if protocol.short_side
        else (room - text) // max(1, (largest.tokens - largest.text_tokens) // max(1, largest.images))
        for native, (_, text) in found.shapes.items()
    ]
    fixes.append(_fewer_frames(protocol.frames, min(frames, default=0)))
    output = f" plus max_tokens {reserve}" if reserve else ""
    return (
        f"{config.model}: its server reports a context of {found.context} tokens (max_model_len); "
        f"the largest request here is about {largest.tokens} tokens{output} ({largest.sample}, "
        f"{largest.images} images at {_size(largest.size)}, by {rule.name}): use {' or '.join(fixes)}"
    )
