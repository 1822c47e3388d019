"""`hf:` backend end to end on tiny random models built in the test (no downloads)."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from tiny_models import build_tiny_llava_onevision, build_tiny_qwen25_vl, build_tiny_smolvlm

from vqakit.models import Frames, Image, Message, Model


@pytest.fixture(scope="module")
def qwen_dir(tmp_path_factory):
    return build_tiny_qwen25_vl(tmp_path_factory.mktemp("qwen25vl"))


@pytest.fixture(scope="module")
def llava_ov_dir(tmp_path_factory):
    return build_tiny_llava_onevision(tmp_path_factory.mktemp("llava-onevision"))


@pytest.fixture(scope="module")
def smolvlm_dir(tmp_path_factory):
    return build_tiny_smolvlm(tmp_path_factory.mktemp("smolvlm"))


def frames(n: int) -> Frames:
    rng = np.random.default_rng(n)
    return Frames(
        tuple(rng.integers(0, 255, (56, 72, 3), dtype=np.uint8) for _ in range(n)),
        tuple(float(2 * i) for i in range(n)),
    )


def picture(seed: int = 0) -> Image:
    return Image(np.random.default_rng(seed).integers(0, 255, (60, 80, 3), dtype=np.uint8))


@pytest.mark.parametrize("fixture", ["qwen_dir", "smolvlm_dir", "llava_ov_dir"])
def test_images_generate(fixture, request):
    model = Model(f"hf:{request.getfixturevalue(fixture)}", params={"max_tokens": 6})
    completion = model.complete_sync(
        [Message.system("Answer briefly."), Message.user(picture(), picture(1), "What?")]
    )
    assert completion.ok or completion.error.type == "empty", completion.error
    assert 0 < completion.usage.output_tokens <= 6 and completion.usage.input_tokens > 10


@pytest.mark.parametrize("fixture", ["qwen_dir", "llava_ov_dir"])
def test_frames_go_in_as_video(fixture, request):
    model = Model(f"hf:{request.getfixturevalue(fixture)}", params={"max_tokens": 4})
    assert model.backend.has_video
    request = model.backend.prepare([Message.user(frames(4), "What happens?")], model.params, None)
    kinds = [part["type"] for part in request.conversation[0]["content"]]
    assert kinds == ["text", "video", "text"]
    assert request.conversation[0]["content"][0]["text"] == "Video frames at [00:00] [00:02] [00:04] [00:06]:"
    completion = model.complete_sync([Message.user(frames(4), "What happens?")])
    assert completion.usage.output_tokens > 0


def test_smolvlm_takes_frames_as_timed_images(smolvlm_dir):
    model = Model(f"hf:{smolvlm_dir}", params={"max_tokens": 4})
    request = model.backend.prepare([Message.user(frames(3), "Count.")], model.params, None)
    kinds = [part["type"] for part in request.conversation[0]["content"]]
    assert kinds == ["text", "image", "text", "image", "text", "image", "text"]
    assert model.complete_sync([Message.user(frames(3), "Count.")]).usage.output_tokens > 0


def test_concurrent_requests_are_batched_and_deterministic(qwen_dir):
    model = Model(f"hf:{qwen_dir}", params={"max_tokens": 5}, backend_options={"batch_size": 4}, cache=False)
    calls = []
    original = model.backend._generate

    def counting(batch):
        calls.append(len(batch))
        return original(batch)

    model.backend._generate = counting
    prompts = [[Message.user(picture(i), f"question {i}")] for i in range(4)]

    async def run():
        return await asyncio.gather(*(model.complete(p) for p in prompts))

    batched = asyncio.run(run())
    assert calls == [4]
    alone = [model.complete_sync(p) for p in prompts]
    assert [c.text for c in batched] == [c.text for c in alone]  # left padding changes nothing


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="hf: cannot load"):
        Model(f"hf:{tmp_path / 'nothing-here'}")
