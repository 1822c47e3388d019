"""A run's estimate in words (`vqakit plan`, the top of `vqakit eval --dry-run`): what it sends,
by which rule, what it costs and how long it takes, and what is refused."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from vqakit.models import TEXT_RULE

if TYPE_CHECKING:
    from ._estimate import RunEstimate


def _count(value: int) -> str:
    return f"{value:,}"


def _plural(value: int, noun: str) -> str:
    """`1 video`, `2 videos`, `1,055 frames`."""
    return f"{value:,} {noun}" if value == 1 else f"{value:,} {noun}s"


def _money(dollars: float) -> str:
    """`$12.34`, or two significant digits under a cent (`$0.0018`)."""
    return f"${dollars:,.2f}" if dollars >= 0.01 or dollars == 0 else f"${dollars:.2g}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _images_line(found: RunEstimate) -> str:
    counts = sorted(found.per_request)
    each = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
    sizes = found.sizes.most_common()
    at = ""
    if sizes:
        (width, height), _ = sizes[0]
        at = f" at {width}x{height}" if len(sizes) == 1 else f" at {len(sizes)} sizes ({width}x{height} most)"
    per_sample = found.requests / found.samples if found.samples else 0
    a_sample = f"{per_sample:g} a sample" if per_sample else "none"
    return (
        f"{_count(found.samples)} samples: {_count(found.requests)} requests ({a_sample}), "
        f"{_count(found.images)} images ({each} a request){at}"
    )


def _tokens_line(found: RunEstimate) -> str:
    if found.rule is None:
        return (
            f"input tokens not estimated: no published image rule is known for {found.config.model} "
            f"(text alone: about {_count(found.text_tokens)}, {TEXT_RULE})"
        )
    largest = found.largest.tokens if found.largest else 0
    video = (
        f"; {found.video_requests} requests send the video itself, not counted"
        if found.video_requests
        else ""
    )
    return (
        f"input tokens about {_count(largest)} a request at most, {_count(found.tokens)} in all: images by "
        f"{found.rule.name} ({found.rule.source}); text {TEXT_RULE}{video}"
    )


def _cost_line(found: RunEstimate) -> str:
    model = found.config.model
    if found.price is None:
        return f"cost: no price for {model} (--prices FILE or $VQAKIT_PRICES: dollars per million tokens)"
    key, price = found.price
    line = f"cost: about {_money(found.tokens * price.input / 1e6)} input ({key} at ${price.input:g} / 1M)"
    max_tokens = (found.config.model_args or {}).get("max_tokens")
    if price.output is None:
        return line + "; output: no output price"
    if not max_tokens:
        return line + "; output not estimated (--model-arg max_tokens=N gives an upper bound)"
    most = found.requests * int(max_tokens) * price.output / 1e6
    return line + f"; output at most {_money(most)} (max_tokens {max_tokens} at ${price.output:g} / 1M)"


def _wall_line(found: RunEstimate) -> str:
    if found.request_s is None:
        return f"wall time: {found.timing_note or 'not timed (--no-timing)'}"
    concurrency = max(1, found.config.concurrency)
    seconds = math.ceil(found.requests / concurrency) * found.request_s
    return (
        f"wall time: about {_duration(seconds)} at concurrency {concurrency} if the server keeps up "
        f"({found.timing_note})"
    )


def _frames_line(found: RunEstimate) -> str:
    videos = _plural(found.videos, "video")
    line = f"frames: {_count(found.images)} sent, {_count(found.frames)} distinct over {videos}"
    if found.frames_stored is None:
        return line + " (no frame store: all decoded)"
    decode = found.frames - found.frames_stored
    return line + f": {_count(found.frames_stored)} in the frame store, {_count(decode)} to decode"


def _limits_line(found: RunEstimate) -> str:
    largest = max(found.per_request, default=0)
    heaviest = found.heaviest.bytes / 2**20 if found.heaviest else 0.0
    parts = []
    limits = found.limits
    if limits is not None:
        takes = [
            f"{_count(limits.images)} images" if limits.images else "",
            f"{limits.request_bytes / 2**20:.0f} MB" if limits.request_bytes else "",
        ]
        parts.append(f"takes {' and '.join(t for t in takes if t)} a request ({limits.source})")
    if found.context:
        parts.append(f"its server reports a context of {_count(found.context)} tokens")
    sent = f"the largest request has {largest} images, about {heaviest:.1f} MB"
    if not parts:
        return f"limits: none known for {found.config.model}; {sent}"
    return f"limits: {found.config.model} {'; '.join(parts)}: {sent}"


def estimate_lines(found: RunEstimate) -> list[str]:
    """The summary of a `_estimate.RunEstimate`, a line each: the run, what it sends, tokens,
    cost, wall time, frames, limits, then each refusal."""
    config = found.config
    head = f"plan: {found.benchmark} · {config.method}" + (f" · {config.model}" if config.model else "")
    lines = [f"{head} -> {found.folder}"]
    if not config.model:
        return [*lines, f"  {_count(found.samples)} samples, no model: nothing is sent"]
    if not found.planned:
        unsaid = f"method {config.method} does not say what it sends: requests, tokens and cost not counted"
        return [*lines, f"  {_count(found.samples)} samples; {unsaid}"]
    lines += [
        f"  {line}"
        for line in (
            _images_line(found),
            _tokens_line(found),
            _cost_line(found),
            _wall_line(found),
            _frames_line(found),
            _limits_line(found),
        )
    ]
    for sample in found.unplanned:
        lines.append(f"  frames cannot be named for {sample} (the sample will fail)")
    lines += [f"refused: {refusal}" for refusal in found.refusals]
    return lines
