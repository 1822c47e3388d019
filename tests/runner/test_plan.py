"""The run planned by video: samples grouped by video, frames decoded ahead in parts that fit the
frames-in-flight limit, and a run whose frames far exceed the limit goes through (no deadlock)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from vqakit.methods import FrameProvider, MethodContext, get_method
from vqakit.runner._plan import by_video, planned
from vqakit.schema import Protocol, Sample


def sample(i: int, video: str, start: float) -> Sample:
    return Sample.model_validate(
        {
            "id": f"s{i}",
            "videos": [{"path": video, "start_s": start, "end_s": start + 4.0}],
            "question": f"What happens in part {i}?",
            "choices": ["a", "b"],
            "answer": 0,
        }
    )


def test_samples_are_grouped_by_video_in_order_of_first_appearance():
    found = by_video(
        [sample(0, "b.mp4", 0), sample(1, "a.mp4", 0), sample(2, "b.mp4", 1), sample(3, "a.mp4", 1)]
    )
    assert [s.id for s in found] == ["s0", "s2", "s1", "s3"]


def test_samples_on_one_video_go_by_where_their_window_starts():
    """Windows from all over a video in benchmark order: planned by where they start, so that a
    part decoded ahead covers one stretch of the video (benchmark order among equal starts)."""
    found = by_video(
        [sample(0, "a.mp4", 50), sample(1, "a.mp4", 10), sample(2, "b.mp4", 0), sample(3, "a.mp4", 10)]
    )
    assert [s.id for s in found] == ["s1", "s3", "s0", "s2"]


def test_many_distinct_frames_pass_through_a_small_limit(index_clip: Path):
    """Forty samples of eight distinct frames each (320 frames) under a limit of 16: the planner
    hands samples over part by part, each part decoded ahead once there is room."""
    samples = [sample(i, index_clip.name, 0.4 * i) for i in range(40)]
    provider = FrameProvider(max_frames_in_flight=16)
    context = MethodContext(
        root=index_clip.parent, protocol=Protocol(frames="uniform:8", short_side=64), frames=provider
    )
    held: list[int] = []
    keys: set[str] = set()

    async def run() -> list[str]:
        done = []
        async for item, requests in planned(samples, get_method("direct"), context):
            held.append(provider.held)
            for request in requests:
                keys.update(request.frame_keys)
                await provider.images(request)
            provider.release(requests)
            done.append(item.id)
        return done

    done = asyncio.run(asyncio.wait_for(run(), 120))
    assert done == [s.id for s in samples]
    assert max(held) <= 16  # never more frames held for waiting samples than the limit
    assert provider.stats.decoded == len(keys) > 16  # each distinct frame decoded once
