"""A run planned by video: the samples on one video run together, and their frames are decoded in
one ordered pass (`_pass`) so that GOPs shared by overlapping windows are decoded once.

`by_video` orders the samples (videos in order of first appearance, samples by where their window
starts within each); `planned` takes each video's samples (in blocks of at most `PLAN_BLOCK`),
asks the method which frames each will want (`Method.plan_frames`), plans the pass over the
video's frames and has the frame provider decode it part by part, handing each part's samples
over (in the order their last frame comes) before the next part is decoded. Before a part is
decoded the planner waits until the samples handed over earlier have made room (back-pressure);
frames decoded ahead for samples of later parts are bounded by the pass itself.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from itertools import groupby
from typing import Any

from vqakit.methods import FrameRequest, Method, MethodContext
from vqakit.runner._pass import Part, ordered_parts

log = logging.getLogger(__name__)

PLAN_BLOCK = 4096  # samples of one video planned as one pass, at most (memory stays bounded)


def by_video(samples: Iterable[Any]) -> list[Any]:
    """Samples grouped by their first video (in order of first appearance), and within a video
    by where their window starts (benchmark order among equals), so that each part decoded
    ahead covers a stretch of the video rather than windows from all over it; samples without a
    video keep their order, after the others."""
    in_video_order = getattr(samples, "in_video_order", None)  # a large benchmark's `SampleFile`
    if in_video_order is not None:  # ordered from its index, no sample read
        return in_video_order()
    groups: dict[str, list[Any]] = {}
    for sample in samples:
        groups.setdefault(_video(sample), []).append(sample)
    without = groups.pop("", [])
    for group in groups.values():
        group.sort(key=lambda sample: sample.videos[0].start_s or 0.0)
    return [sample for group in groups.values() for sample in group] + without


def _video(sample: Any) -> str:
    return sample.videos[0].path if sample.videos else ""


def _requests(method: Method, block: list[Any], context: MethodContext) -> list[list[FrameRequest]]:
    found = []
    for sample in block:
        try:
            found.append(method.plan_frames(sample, context) if method.plan_frames else [])
        except Exception as error:  # the sample itself will fail with this when it runs
            log.debug("no frame plan for %s: %s", sample.id, error)
            found.append([])
    return found


def _blocks(ordered: Iterable[Any]) -> Iterable[list[Any]]:
    """Runs of samples on one video, at most `PLAN_BLOCK` long, taken as they come (a video of a
    large benchmark may have hundreds of thousands of samples, read from its file as used)."""
    for _, group in groupby(ordered, key=_video):
        block: list[Any] = []
        for sample in group:
            block.append(sample)
            if len(block) == PLAN_BLOCK:
                yield block
                block = []
        if block:
            yield block


def _gops(path: str, numbers: set[int]) -> dict[int, int] | None:
    """Frame number -> the GOP it is decoded from, where this process has the video's frame index
    (it has after naming the frames of a first run; a run whose frames are kept needs none)."""
    from vqakit.video import built_frame_index

    index = built_frame_index(path)
    if index is None or not numbers:
        return None
    from vqakit.video import decode_starts  # PyAV: only where the video was read

    ordered = sorted(numbers)
    return dict(zip(ordered, decode_starts(index, ordered).tolist(), strict=True))


def _pass(requests: list[list[FrameRequest]], limit: int) -> tuple[tuple | None, list[Part]]:
    """The ordered pass over the video most of the block's frames come from: (its group, parts).
    A sample's frames of other videos are decoded with the sample (`_part_requests`)."""
    groups = Counter(request.group for found in requests for request in found)
    if not groups:
        return None, ordered_parts([frozenset()] * len(requests), share=1, hold=0)
    main = groups.most_common(1)[0][0]
    wanted = [frozenset(n for r in found if r.group == main for n in r.numbers) for found in requests]
    path = next(r.path for found in requests for r in found if r.group == main)
    gops = _gops(path, set().union(*wanted))
    parts = ordered_parts(
        wanted, gops.__getitem__ if gops else None, share=max(1, limit // 2), hold=limit // 2
    )
    return main, parts


def _part_requests(
    requests: list[list[FrameRequest]], main: tuple | None, part: Part
) -> tuple[list[FrameRequest], set[str], list[FrameRequest]]:
    """What the provider decodes for a part: the part's frames of every request on the main video
    (whole requests where they fall in the part whole, their frames in the part otherwise), and
    the other requests of the samples the part hands over; the keys decoded for samples of later
    parts (`ahead`); and the requests whose strips can be made with the part (the whole ones)."""
    ready = set(part.ready)
    now: set[str] = set()
    out: list[FrameRequest] = []
    whole: list[FrameRequest] = []
    for index, found in enumerate(requests):
        for request in found:
            if request.group != main:
                if index in ready:
                    out.append(request)
                    whole.append(request)
                    now.update(request.frame_keys)
                continue
            positions = [at for at, n in enumerate(request.numbers) if n in part.frames]
            if not positions:
                continue
            if len(positions) == len(request.numbers):
                taken = request
                whole.append(request)
            else:
                taken = request.subset(positions)
            out.append(taken)
            if index in ready:
                now.update(taken.frame_keys)
    ahead = {key for request in out for key in request.frame_keys} - now
    return out, ahead, whole


async def planned(
    samples: list[Any], method: Method, context: MethodContext
) -> AsyncIterator[tuple[Any, list[FrameRequest]]]:
    """(sample, the frame requests planned for it) in video order, decoding ahead; the caller
    hands each sample's requests to `context.frames.release` when the sample is done."""
    provider = context.frames
    for block in _blocks(by_video(samples)):
        if not method.plan_frames:
            for sample in block:
                yield sample, []
            continue
        requests = await asyncio.to_thread(_requests, method, block, context)
        main, parts = await asyncio.to_thread(_pass, requests, provider.max_frames_in_flight)
        for part in parts:
            # planned as they are handed over: a frame counts against the limit while a sample
            # handed over wants it, never for a sample of a later part (those the pass bounds)
            provider.plan(request for index in part.ready for request in requests[index])
            wanted, ahead, whole = _part_requests(requests, main, part)
            if wanted:
                await provider.prefetch(wanted, ahead=ahead, strips=whole)
            for index in part.ready:
                yield block[index], requests[index]
