"""One ordered decode pass per video: questions whose windows overlap share the GOPs they fall in,
each GOP is decoded by one part of the pass (and one decode job), and the frames sent are byte
for byte those each question's own decode gives."""

from __future__ import annotations

import asyncio
from itertools import pairwise
from pathlib import Path

import pytest

from vqakit.methods import FrameProvider, MethodContext, get_method
from vqakit.methods._frame_jobs import JOB_FRAMES, job_chunks
from vqakit.models import image_encoding, sent_jpeg
from vqakit.runner._pass import ordered_parts
from vqakit.runner._plan import planned
from vqakit.schema import Protocol, Sample, Uniform
from vqakit.video import Resize, decode_starts, frame_index, sample_frames, write_index_clip

FPS, GOP = 25, 50


def sliding(count: int, length: int, step: int, per: int) -> list[frozenset[int]]:
    """Frame numbers of `count` questions, `per` uniform frames each, in windows of `length`
    frames that start `step` frames apart."""
    return [frozenset(int(i * step + (k + 0.5) * length / per) for k in range(per)) for i in range(count)]


def check(parts, wanted, hold: int, gop) -> None:
    """Each question handed over once, after every frame it wants was decoded; frames decoded for
    questions of later parts never more than `hold` at once."""
    decoded: set[int] = set()
    handed: list[int] = []
    for part in parts:
        decoded |= part.frames
        handed += part.ready
        assert all(wanted[i] <= decoded for i in part.ready)
        later = {n for i in range(len(wanted)) if i not in handed for n in wanted[i]}
        assert len(decoded & later) <= hold
    assert sorted(handed) == list(range(len(wanted)))


def gop_decodes(parts, gop) -> int:
    """GOPs decoded, counting a GOP once per part that decodes frames of it."""
    return sum(len({gop(n) for n in part.frames}) for part in parts)


def test_sliding_windows_decode_each_gop_once():
    """100 questions x 32 frames in 5-minute windows over 30 minutes (the e2e benchmark's long
    video): one pass decodes each of its GOPs once; parts of questions (as before) decoded the
    GOPs shared by overlapping windows again and again."""
    wanted = sliding(100, 300 * FPS, int(1500 / 99 * FPS), 32)
    gop = lambda n: n // 250  # noqa: E731
    parts = ordered_parts(wanted, gop, share=256, hold=512)
    check(parts, wanted, 512, gop)
    distinct = {gop(n) for frames in wanted for n in frames}
    assert gop_decodes(parts, gop) == len(distinct)
    # what planning by parts of 8 questions, each decoded on its own, costs
    batches = [set().union(*wanted[i : i + 8]) for i in range(0, 100, 8)]
    assert sum(len({gop(n) for n in batch}) for batch in batches) > 2.5 * len(distinct)


def test_a_small_bound_holds_fewer_frames_and_decodes_some_gops_again():
    wanted = sliding(100, 300 * FPS, int(1500 / 99 * FPS), 32)
    gop = lambda n: n // 250  # noqa: E731
    for hold in (0, 64, 256):
        parts = ordered_parts(wanted, gop, share=64, hold=hold)
        check(parts, wanted, hold, gop)
    distinct = len({gop(n) for frames in wanted for n in frames})
    assert gop_decodes(ordered_parts(wanted, gop, share=64, hold=0), gop) > distinct


def test_questions_go_by_their_last_frame_and_parts_end_at_gop_ends():
    wanted = [frozenset({5, 300}), frozenset({10, 20}), frozenset(), frozenset({120, 130, 160})]
    gop = lambda n: n // 100  # noqa: E731
    parts = ordered_parts(wanted, gop, share=1, hold=100)
    assert [i for part in parts for i in part.ready] == [2, 1, 3, 0]
    for part in parts:  # no GOP's frames split between two parts
        for other in parts:
            if other is not part:
                assert not {gop(n) for n in part.frames} & {gop(n) for n in other.frames}


def test_jobs_end_at_gop_ends(tmp_path: Path):
    clip = write_index_clip(tmp_path / "clip.mp4", seconds=20, fps=FPS, gop=GOP)
    index = frame_index(clip)
    numbers = list(range(0, 500, 3))
    chunks = job_chunks(str(clip), numbers)
    assert [n for chunk in chunks for n in chunk] == numbers
    starts = [set(decode_starts(index, chunk).tolist()) for chunk in chunks]
    for one, other in pairwise(starts):
        assert not one & other  # a GOP is decoded by one job
    assert all(len(chunk) < JOB_FRAMES + GOP for chunk in chunks)


def question(i: int, start: float, length: float) -> Sample:
    return Sample.model_validate(
        {
            "id": f"q{i:02d}",
            "videos": [{"path": "clip.mp4", "start_s": start, "end_s": start + length}],
            "question": f"What happens in part {i}?",
            "choices": ["a", "b"],
            "answer": 0,
        }
    )


@pytest.mark.parametrize("limit", [64, 1024])
def test_frames_are_those_each_question_decodes_alone(tmp_path: Path, limit: int):
    """Twelve questions in overlapping 20 s windows of a real clip (B-frames, GOP 50), planned as
    one pass and decoded in GOP-aligned jobs: every frame sent is byte for byte the JPEG of the
    frame the question's own decode gives (`sample_frames`, then the same encoding), and each
    distinct frame is decoded once. With a small limit the pass holds fewer frames ahead."""
    clip = write_index_clip(tmp_path / "clip.mp4", seconds=60, fps=FPS, gop=GOP)
    samples = [question(i, 3.0 * i, 20.0) for i in range(12)]
    encoding = image_encoding(768)
    resize = Resize(short_side=96)
    provider = FrameProvider(max_frames_in_flight=limit)

    class Sends:  # the encoding a model that takes JPEGs asks for (`methods.sent_encoding`)
        image_encoding = encoding

    context = MethodContext(
        root=tmp_path, protocol=Protocol(frames="uniform:12", short_side=96), model=Sends(), frames=provider
    )
    sent: dict[str, list[bytes]] = {}

    async def run() -> None:
        async for item, requests in planned(samples, get_method("direct"), context):
            sent[item.id] = [image.data for r in requests for image in await provider.images(r)]
            provider.release(requests)

    asyncio.run(asyncio.wait_for(run(), 120))
    distinct = set()
    for item in samples:
        spec = Uniform(12, item.videos[0].start_s, item.videos[0].end_s)
        alone = sample_frames(clip, spec, resize=resize)
        distinct.update(frame.frame_number for frame in alone)
        assert sent[item.id] == [sent_jpeg(frame.image, 768).data for frame in alone], item.id
    assert provider.stats.decoded == len(distinct)
