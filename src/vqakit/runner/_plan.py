"""A run planned by video: the samples on one video run together, and their frames are named
ahead so that one decode job serves all of them.

`by_video` orders the samples (videos in order of first appearance, samples by where their
window starts within each); `planned` walks that order in chunks, asks the method which frames each sample
will want (`Method.plan_frames`) and has the frame provider decode them ahead, part by part,
while the frames held stay under its limit: before a part is decoded, the planner waits until
the samples handed over earlier have made room (back-pressure).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterable
from typing import Any

from vqakit.methods import FrameRequest, Method, MethodContext

log = logging.getLogger(__name__)

PLAN_CHUNK = 64  # samples named and prefetched together


def by_video(samples: Iterable[Any]) -> list[Any]:
    """Samples grouped by their first video (in order of first appearance), and within a video
    by where their window starts (benchmark order among equals), so that each part decoded
    ahead covers a stretch of the video rather than windows from all over it; samples without a
    video keep their order, after the others."""
    groups: dict[str, list[Any]] = {}
    for sample in samples:
        key = sample.videos[0].path if sample.videos else ""
        groups.setdefault(key, []).append(sample)
    without = groups.pop("", [])
    for group in groups.values():
        group.sort(key=lambda sample: sample.videos[0].start_s or 0.0)
    return [sample for group in groups.values() for sample in group] + without


def _requests(method: Method, chunk: list[Any], context: MethodContext) -> list[list[FrameRequest]]:
    found = []
    for sample in chunk:
        try:
            found.append(method.plan_frames(sample, context) if method.plan_frames else [])
        except Exception as error:  # the sample itself will fail with this when it runs
            log.debug("no frame plan for %s: %s", sample.id, error)
            found.append([])
    return found


async def planned(
    samples: list[Any], method: Method, context: MethodContext
) -> AsyncIterator[tuple[Any, list[FrameRequest]]]:
    """(sample, the frame requests planned for it) in video order, decoding ahead; the caller
    hands each sample's requests to `context.frames.release` when the sample is done."""
    ordered = by_video(samples)
    for start in range(0, len(ordered), PLAN_CHUNK):
        chunk = ordered[start : start + PLAN_CHUNK]
        requests = await asyncio.to_thread(_requests, method, chunk, context) if method.plan_frames else None
        if requests is None:
            for sample in chunk:
                yield sample, []
            continue
        # planned and prefetched in parts of about half the frames-in-flight limit; each part's
        # samples are handed over before the next part waits for room, and the frames counted
        # against the limit are only those of samples handed over, so room always comes
        share = max(1, context.frames.max_frames_in_flight // 2)
        part: list[tuple[Any, list[FrameRequest]]] = []
        frames = 0
        for index, (sample, found) in enumerate(zip(chunk, requests, strict=True)):
            part.append((sample, found))
            frames += sum(len(request.numbers) for request in found)
            if frames >= share or index == len(chunk) - 1:
                wanted = [request for _, found_ in part for request in found_]
                context.frames.plan(wanted)
                await context.frames.prefetch(wanted)
                for item in part:
                    yield item
                part, frames = [], 0
