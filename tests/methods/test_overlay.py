"""Frames a method draws on (an `Overlay`): drawn before they are encoded, byte for byte as drawing
the decoded frame and encoding it would; stored and shared under keys naming what is drawn; one
decode serves drawn and plain requests of a video; decoded in worker processes too."""

from __future__ import annotations

import asyncio
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np

from vqakit.methods import FrameProvider, Overlay
from vqakit.models import image_encoding, sent_jpeg
from vqakit.schema import Uniform
from vqakit.video import FrameStore, Resize, sample_frames

ENCODING = image_encoding(256)
SMALL = Resize(short_side=128)


def paint(image: np.ndarray, what: tuple) -> np.ndarray:
    """A test drawing: a filled square of `colour` at `(x, y)`."""
    (x, y), colour = what
    drawn = image.copy()
    drawn[y : y + 10, x : x + 10] = colour
    return drawn


def overlay(numbers, colour=(255, 0, 0)) -> Overlay:
    what = {n: ((5 + i, 5), colour) for i, n in enumerate(numbers)}
    return Overlay(paint, what, {n: repr(w) for n, w in what.items()})


def expected(path, marks: dict[int, tuple]) -> list[bytes]:
    """Drawn on the decoded frames, then encoded as any frame is sent."""
    frames = sample_frames(path, Uniform(4), resize=SMALL)
    return [
        sent_jpeg(paint(f.image, marks[f.frame_number]) if f.frame_number in marks else f.image, 256).data
        for f in frames
    ]


def test_drawn_frames_are_drawn_then_encoded_and_kept_under_their_own_keys(index_clip, tmp_path):
    provider = FrameProvider(FrameStore(tmp_path / "frames.sqlite"))
    plain = provider.request(str(index_clip), Uniform(4), SMALL, ENCODING)
    marked = overlay(plain.numbers[:2])  # two of the four frames are drawn on
    drawn = plain.drawn(marked)
    assert drawn.identity != plain.identity
    assert drawn.frame_keys[2:] == plain.frame_keys[2:]
    assert not set(drawn.frame_keys[:2]) & set(plain.frame_keys)

    async def both() -> tuple:  # as the runner does: planned together, decoded ahead
        provider.plan([drawn, plain])
        await provider.prefetch([drawn, plain])
        return await asyncio.gather(provider.images(drawn), provider.images(plain))

    got_drawn, got_plain = asyncio.run(both())
    assert [i.data for i in got_drawn] == expected(index_clip, dict(marked.what))
    assert [i.data for i in got_plain] == expected(index_clip, {})
    assert provider.stats.decoded == 4 and provider.stats.jobs == 1  # drawn and plain share one decode

    # another run: every frame from the store, the drawn ones under their drawn keys
    later = FrameProvider(FrameStore(tmp_path / "frames.sqlite"))
    again = later.request(str(index_clip), Uniform(4), SMALL, ENCODING).drawn(overlay(plain.numbers[:2]))
    assert [i.data for i in asyncio.run(later.images(again))] == [i.data for i in got_drawn]
    assert later.stats.decoded == 0 and later.stats.from_store == 4
    # something else drawn is another frame
    blue = overlay(plain.numbers[:2], (0, 0, 255))
    other = later.request(str(index_clip), Uniform(4), SMALL, ENCODING).drawn(blue)
    assert other.identity != drawn.identity
    assert asyncio.run(later.images(other))[0].data != got_drawn[0].data and later.stats.decoded == 2


def test_a_subset_of_drawn_frames_is_the_same_frames(index_clip):
    provider = FrameProvider()
    drawn = provider.request(str(index_clip), Uniform(4), SMALL, ENCODING)
    drawn = drawn.drawn(overlay(drawn.numbers))
    one = drawn.subset([1])
    assert one.frame_keys == drawn.frame_keys[1:2] and one.times_s == drawn.times_s[1:2]

    async def run() -> tuple:
        return await provider.images(drawn), await provider.images(one)

    whole, single = asyncio.run(run())
    assert single[0].data == whole[1].data and provider.stats.decoded == 4


def test_drawing_runs_in_worker_processes(index_clip):
    """The overlay's function and data travel to a worker process (spawned) and back."""
    with ProcessPoolExecutor(1, mp_context=get_context("spawn")) as pool:
        provider = FrameProvider(executor=pool)
        drawn = provider.request(str(index_clip), Uniform(4), SMALL, ENCODING)
        marked = overlay(drawn.numbers)
        got = asyncio.run(provider.images(drawn.drawn(marked)))
    assert [i.data for i in got] == expected(index_clip, dict(marked.what))


def test_a_strip_of_several_requests_is_their_frames_side_by_side(index_clip, tmp_path):
    from vqakit.video import strip_jpeg

    provider = FrameProvider(FrameStore(tmp_path / "frames.sqlite"))
    first = provider.request(str(index_clip), Uniform(2, 0.0, 5.0), SMALL, ENCODING)
    second = provider.request(str(index_clip), Uniform(3, 10.0, 15.0), SMALL, ENCODING)
    strip = asyncio.run(provider.strip(first, second))
    sent = asyncio.run(provider.images(first)) + asyncio.run(provider.images(second))
    assert strip == strip_jpeg([image.data for image in sent])
    later = FrameProvider(FrameStore(tmp_path / "frames.sqlite"))
    specs = (Uniform(2, 0.0, 5.0), Uniform(3, 10.0, 15.0))
    again = [later.request(str(index_clip), spec, SMALL, ENCODING) for spec in specs]
    assert asyncio.run(later.strip(*again)) == strip and later.stats.decoded == 0


def test_two_paths_of_one_video_share_its_frames(index_clip, tmp_path):
    """Frames are named by the video's content: a copy under another name asks for the same
    frames, decoded once even when both are planned together."""
    import shutil

    copy = tmp_path / "copy.mp4"
    shutil.copy(index_clip, copy)
    provider = FrameProvider()
    wanted = [provider.request(str(path), Uniform(4), SMALL, ENCODING) for path in (index_clip, copy)]
    wanted.append(wanted[1].drawn(overlay(wanted[1].numbers)))
    assert wanted[0].frame_keys == wanted[1].frame_keys

    async def run() -> list:
        provider.plan(wanted)
        await provider.prefetch(wanted)
        return await asyncio.gather(*(provider.images(r) for r in wanted))

    first, second, drawn = asyncio.run(run())
    assert [i.data for i in first] == [i.data for i in second] == expected(index_clip, {})
    assert [i.data for i in drawn] == expected(index_clip, dict(wanted[2].overlay.what))
    assert provider.stats.decoded == 4 and provider.stats.jobs == 1
