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
    model = Model(f"hf:{request.getfixturevalue(fixture)}?max_tokens=6")
    completion = model.complete_sync(
        [Message.system("Answer briefly."), Message.user(picture(), picture(1), "What?")]
    )
    # random weights: a reply cut at 6 tokens is the usual outcome, and its partial text is kept
    assert completion.ok or completion.error.type in ("empty", "truncated"), completion.error
    assert 0 < completion.usage.output_tokens <= 6 and completion.usage.input_tokens > 10
    if completion.error is not None and completion.error.type == "truncated":
        assert completion.text is not None and completion.attempts == 1


@pytest.mark.parametrize("fixture", ["qwen_dir", "llava_ov_dir"])
def test_frames_go_in_as_video(fixture, request):
    model = Model(f"hf:{request.getfixturevalue(fixture)}", settings={"max_tokens": 4})
    assert model.backend.has_video
    request = model.backend.prepare(
        [Message.user(frames(4), "What happens?")], model.settings.with_defaults(), None
    )
    kinds = [part["type"] for part in request.conversation[0]["content"]]
    assert kinds == ["text", "video", "text"]
    assert request.conversation[0]["content"][0]["text"] == "Video frames at [00:00] [00:02] [00:04] [00:06]:"
    completion = model.complete_sync([Message.user(frames(4), "What happens?")])
    assert completion.usage.output_tokens > 0


def test_smolvlm_takes_frames_as_timed_images(smolvlm_dir):
    model = Model(f"hf:{smolvlm_dir}", settings={"max_tokens": 4})
    request = model.backend.prepare([Message.user(frames(3), "Count.")], model.settings.with_defaults(), None)
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
    with pytest.raises(ValueError, match=r"hf: local folder .*nothing-here not found"):
        Model(f"hf:{tmp_path / 'nothing-here'}")


def test_generation_settings_reach_generate_and_the_chat_template(qwen_dir):
    plain = Model(f"hf:{qwen_dir}", cache=False)
    greedy = plain.backend.prepare([Message.user("q")], plain.settings.with_defaults(), None)
    assert greedy.generation == {"max_new_tokens": 1024, "do_sample": False}  # documented defaults
    assert greedy.template == {}
    sampled = plain.backend.prepare([Message.user("q")], plain.settings.merged({"temperature": 0.7}), None)
    assert sampled.generation == {"max_new_tokens": 1024, "do_sample": True, "temperature": 0.7}

    model = Model(f"hf:{qwen_dir}?system=Be%20brief.&thinking=false&reasoning_effort=low", cache=False)
    backend = model.backend
    reasoning = backend.prepare([Message.user("q")], model.settings.with_defaults(), None)
    assert reasoning.generation == {"max_new_tokens": 1024}  # the model's own sampling settings
    assert reasoning.template == {"enable_thinking": False, "reasoning_effort": "low"}
    # the template variables reach the chat template, and the system prompt comes first
    backend.processor.chat_template = (
        "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{% for p in m['content'] %}{{ p['text'] }}"
        "{% endfor %}<|im_end|>\n{% endfor %}<|im_start|>assistant\n"
        "{% if enable_thinking is defined and not enable_thinking %}<think>\n\n</think>\n\n{% endif %}"
    )
    rendered = []
    original = backend.processor.apply_chat_template

    def recording(conversations, **kwargs):
        template = {key: kwargs[key] for key in reasoning.template if key in kwargs}
        rendered.append(original(conversations, tokenize=False, add_generation_prompt=True, **template))
        return original(conversations, **kwargs)

    backend.processor.apply_chat_template = recording
    completion = model.complete_sync([Message.user("Which letter?")], max_tokens=3)
    assert completion.usage.output_tokens > 0
    assert rendered[0][0].startswith("<|im_start|>system\nBe brief.<|im_end|>")
    assert rendered[0][0].endswith("<think>\n\n</think>\n\n")


def test_a_stop_string_ends_the_reply_and_is_cut(qwen_dir):
    model = Model(f"hf:{qwen_dir}", cache=False)
    free = model.complete_sync([Message.user("q")], max_tokens=12)
    assert free.text
    stop = free.text[2:4]  # random weights, greedy: the same reply again, cut at its third character
    stopped = model.complete_sync([Message.user("q")], max_tokens=12, stop=[stop])
    assert stopped.ok and stopped.finish_reason == "stop"
    assert stopped.text == free.text[: free.text.find(stop)]
