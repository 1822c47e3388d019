"""The frame provider: frames named by identity, decoded once, kept in the frame store, sent
byte for byte as the decoder and encoder make them, and held within a limit."""

from __future__ import annotations

import asyncio
import io

import numpy as np
import pytest
from PIL import Image as PILImage

from vqakit.methods import FrameProvider
from vqakit.models import EncodedImage, encode_jpeg, image_encoding, sent_jpeg
from vqakit.schema import Timestamps, Uniform
from vqakit.video import FrameStore, Resize, sample_frames, strip_jpeg

ENCODING = image_encoding(256)
SMALL = Resize(short_side=128)


def request(provider: FrameProvider, path, n: int = 6, resize=SMALL, start_s=None):
    return provider.request(str(path), Uniform(n, start_s), resize, ENCODING)


def expected(path, n: int = 6, resize=SMALL) -> list[bytes]:
    """What the model must be sent: the exact frames, shrunk and encoded as data URLs do."""
    return [sent_jpeg(f.image, 256).data for f in sample_frames(path, Uniform(n), resize=resize)]


def test_sent_frames_are_the_exact_frames_encoded_once(index_clip, tmp_path):
    want = expected(index_clip)
    without = FrameProvider()
    first = asyncio.run(without.images(request(without, index_clip)))
    assert [image.data for image in first] == want and without.stats.decoded == 6

    store = FrameStore(tmp_path / "frames.sqlite")
    cold = FrameProvider(store)
    assert [image.data for image in asyncio.run(cold.images(request(cold, index_clip)))] == want
    warm = FrameProvider(FrameStore(tmp_path / "frames.sqlite"))
    again = asyncio.run(warm.images(request(warm, index_clip)))
    assert [image.data for image in again] == want
    assert warm.stats.decoded == 0 and warm.stats.from_store == 6
    assert all(
        isinstance(image, EncodedImage) and (image.width, image.height) == (171, 128) for image in again
    )


def test_pillow_encodes_as_data_urls_always_did():
    """With Pillow chosen, the bytes are those of the encoding before the frame store."""
    rows, cols = np.mgrid[0:48, 0:64]
    image = np.stack([rows * 5, cols * 4, (rows + cols) * 2], axis=-1).astype(np.uint8)
    buffer = io.BytesIO()
    PILImage.fromarray(image).save(buffer, format="JPEG", quality=90)
    assert encode_jpeg(image, 90, encoder="pillow") == buffer.getvalue()
    pytest.importorskip("simplejpeg")
    fast = encode_jpeg(image, 90, encoder="simplejpeg")
    assert np.abs(np.asarray(PILImage.open(io.BytesIO(fast))).astype(int) - image).mean() < 3


def test_identity_names_video_frames_size_and_encoding(index_clip, ntsc_clip):
    provider = FrameProvider()
    base = request(provider, index_clip)
    assert request(FrameProvider(), index_clip).identity == base.identity  # any provider, any run
    others = [
        request(provider, ntsc_clip),
        request(provider, index_clip, n=7),
        request(provider, index_clip, resize=Resize(short_side=64)),
        provider.request(str(index_clip), Uniform(6), Resize(short_side=128), image_encoding(128)),
        provider.request(str(index_clip), Uniform(6), Resize(short_side=128), None),
    ]
    assert len({base.identity, *(other.identity for other in others)}) == 6


def test_samples_asking_for_the_same_frames_share_one_decode(index_clip):
    provider = FrameProvider()

    async def many() -> list:
        return await asyncio.gather(*(provider.images(request(provider, index_clip)) for _ in range(20)))

    found = asyncio.run(many())
    assert provider.stats.jobs == 1 and provider.stats.decoded == 6
    assert all([i.data for i in images] == [i.data for i in found[0]] for images in found)


def test_frames_let_go_while_a_request_is_filled_are_still_answered(index_clip, monkeypatch):
    """A request whose frames are partly held and partly decoded: while its decode runs, the
    frames held only as recent may be let go (other samples' frames push them out). The
    request still gets every frame (it once looked them up again after the decode: KeyError)."""
    provider = FrameProvider()
    first = provider.request(str(index_clip), Timestamps((1.0, 2.0)), SMALL, ENCODING)
    asyncio.run(provider.images(first))  # held as recent, wanted by no planned sample
    real_fill = provider._fill

    async def fill_while_recent_frames_go(*args, **kwargs):
        for key in first.frame_keys:  # what _keep_recent does when recent frames overflow
            provider._frames.pop(key, None)
        await real_fill(*args, **kwargs)

    monkeypatch.setattr(provider, "_fill", fill_while_recent_frames_go)
    both = provider.request(str(index_clip), Timestamps((1.0, 2.0, 3.0)), SMALL, ENCODING)
    images = asyncio.run(provider.images(both))
    frames = sample_frames(index_clip, Timestamps((1.0, 2.0, 3.0)), resize=SMALL)
    assert [image.data for image in images] == [sent_jpeg(f.image, 256).data for f in frames]


def test_strips_are_made_once_from_the_frames_as_sent(index_clip, tmp_path):
    store = FrameStore(tmp_path / "frames.sqlite")
    provider = FrameProvider(store)
    wanted = request(provider, index_clip)
    strip = asyncio.run(provider.strip(wanted))
    sent = asyncio.run(provider.images(wanted))
    assert strip == strip_jpeg([image.data for image in sent])
    later = FrameProvider(FrameStore(tmp_path / "frames.sqlite"))
    assert asyncio.run(later.strip(request(later, index_clip))) == strip
    assert later.stats.strips_from_store == 1 and later.stats.decoded == 0


def test_prefetch_decodes_a_video_once_for_all_its_requests(index_clip):
    provider = FrameProvider()
    wanted = [request(provider, index_clip, n=4, start_s=start) for start in (0.0, 5.0, 10.0)]

    async def run() -> None:
        provider.plan(wanted)
        await provider.prefetch(wanted)
        await asyncio.gather(*(provider.images(r) for r in wanted))

    asyncio.run(run())
    assert provider.stats.jobs == 1 and provider.stats.decoded == 12


def test_frames_held_stay_under_the_limit(index_clip):
    """Prefetching waits while the frames of planned, unfinished samples fill the limit."""
    provider = FrameProvider(max_frames_in_flight=8)
    first, second = (request(provider, index_clip, n=8, start_s=start) for start in (0.0, 10.0))

    async def run() -> None:
        provider.plan([first, second])
        await provider.prefetch([first])
        await provider.images(first)
        assert provider.held == 8
        waiting = asyncio.ensure_future(provider.prefetch([second]))
        await asyncio.sleep(0.2)
        assert not waiting.done() and provider.held == 8  # back-pressure: no room yet
        provider.release([first])
        await asyncio.wait_for(waiting, 10)
        await provider.images(second)
        assert provider.held == 8
        provider.release([second])
        assert provider.held == 0

    asyncio.run(run())


def test_a_broken_video_fails_the_requests_not_the_provider(tmp_path, index_clip):
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(index_clip.read_bytes()[:4000])
    provider = FrameProvider()
    with pytest.raises(Exception, match=r"broken\.mp4"):
        asyncio.run(provider.images(request(provider, broken)))
    assert asyncio.run(provider.images(request(provider, index_clip)))
