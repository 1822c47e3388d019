"""What is sent did not change when the body came to be put together as bytes: the request body of
`openai:`/`openai-compatible:` is byte for byte `json.dumps` of the structured request (the same
images, the same prompt), and its digest and the response cache's keys are those vqakit had
before (so cached replies are still found)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from vqakit.benchmarks import load_benchmark
from vqakit.models import EncodedImage, Frames, Image, Message, Model, Video, cache_key, sent_jpeg
from vqakit.models._openai import openai_body, to_openai_messages
from vqakit.prompts import render_prompt
from vqakit.schema import Uniform
from vqakit.scoring import format_options
from vqakit.video import Resize, sample_frames

SPEC = "openai-compatible:http://127.0.0.1:9/v1#Qwen/Qwen2.5-VL-7B?max_tokens=16"
TEXT = 'Question: what happens first?\nA. one\nB. \u00e9t\u00e9 "two"\nC. three\nAnswer with the letter.'
# digests of what vqakit sent and keyed before this change (a477214), for the fixed message below
BODY_SHA256 = "d01196bccba8182d1dc7cdee3a9509a653b291927672d959f2d0ec48e2225eda"
NAMED_KEY = "38f73e36b996192f1ad8ded15990e630a7c84018060e743ee126670cfa1aed1b"
PIXEL_KEY = "950b98711d5d17d4745b60314447fd11fdc6c9062e762de28a36389f986d53a4"


def structured(model: Model, messages: list[Message]) -> bytes:
    """The body as vqakit built it before: the request as Python objects, dumped as JSON."""
    settings = model.backend.wire_settings(model.settings.with_defaults())
    body = {
        "model": model.spec.model,
        "messages": to_openai_messages(messages, model.backend.image_max_side),
        **settings,
    }
    return json.dumps(body).encode()


def test_the_fixed_request_and_its_cache_keys_are_what_they_were():
    images = tuple(EncodedImage(bytes([255, 216, 255, i]) * (50 + 7 * i), 640, 360) for i in range(4))
    times = (0.5, 1.5, 2.5, 3.5)
    message = Message.user(Frames(images, times), TEXT)
    model = Model(SPEC, cache=False)
    settings = model.settings.with_defaults()
    body = model.backend.prepare([message], settings, "s1")
    assert hashlib.sha256(body).hexdigest() == BODY_SHA256
    assert body == openai_body(model.spec.model, [message], 768, model.backend.wire_settings(settings))
    wire = {**settings.given(), "image_max_side": 768}
    named = Frames((), times, identity="frames-identity-fixed", fetch=lambda: None)
    assert cache_key(model._cache_spec, wire, [Message.user(named, TEXT)]) == NAMED_KEY
    assert cache_key(model._cache_spec, wire, [message]) == PIXEL_KEY


def test_a_sample_benchmark_question_is_sent_as_before():
    """The sample benchmark's first question as `direct` sends it: 16 frames of its real video
    (448-pixel short side, JPEG as the frame store keeps them) and its MCQ prompt."""
    benchmark = load_benchmark("sample")
    sample = benchmark.samples[0]
    video = benchmark.root / sample.videos[0].path
    frames = sample_frames(video, Uniform(16), resize=Resize(short_side=448))
    images = tuple(sent_jpeg(frame.image, 768) for frame in frames)
    prompt = render_prompt(
        "mcq", question=sample.question, options=format_options(sample.choices, "letters"), context=""
    )
    message = Message.user(Frames(images, tuple(frame.time_s for frame in frames)), prompt)
    model = Model(SPEC, cache=False)
    body = model.backend.prepare([message], model.settings.with_defaults(), sample.id)
    assert body == structured(model, [message])
    sent = json.loads(body)
    assert [item["type"] for item in sent["messages"][0]["content"]] == ["text", "image_url"] * 16 + ["text"]
    assert sent["messages"][0]["content"][-1]["text"] == prompt


def test_every_kind_of_part_is_sent_as_before(tmp_path: Path):
    """Arrays and PIL-sized pictures encoded on the way, a JPEG larger than the model takes
    (shrunk), frames without time labels, a video clip, a system message, a text-only turn."""
    rng = np.random.default_rng(0)
    array = rng.integers(0, 255, (300, 1000, 3), dtype=np.uint8)
    small = sent_jpeg(array[:90, :160], None)
    large = sent_jpeg(array, None)  # 1000 px wide: shrunk to the model's 768
    messages = [
        Message.system('Answer "briefly".'),
        Message.user(
            Frames((small, large, array[:40, :60]), (0.0, 1.5, 62.0)),
            "Q \u2028 \u2603",
            Image(array[:20, :20]),
        ),
        Message.of("assistant", "B", "because"),
        Message.user(
            Frames((small,), (3.0,), label_times=False), Video(0.0, 5.0, 1.0, data=b"\x00clip"), "v"
        ),
    ]
    for max_side in (768, None, 100):
        model = Model(SPEC, cache=False, image_max_side=max_side)
        body = model.backend.prepare(messages, model.settings.with_defaults(), None)
        assert body == structured(model, messages), max_side
        assert json.loads(body) == json.loads(structured(model, messages))


def test_a_frame_is_made_base64_once_however_many_requests_send_it():
    image = EncodedImage(b"\xff\xd8\xff" * 100, 10, 10)
    first = openai_body("m", [Message.user(Frames((image,), (0.0,)), "q")], 768, {})
    assert image.__dict__["base64"] is image.base64  # kept on the frame
    assert openai_body("m", [Message.user(Frames((image,), (0.0,)), "q2")], 768, {}) != first


@pytest.mark.parametrize("encoded", [True, False])
def test_a_request_that_encodes_nothing_is_prepared_without_a_thread(encoded: bool):
    """JPEGs as the frame store keeps them go on the wire as they are: nothing for a worker
    thread to do. Pixels are encoded, in a thread."""
    image = EncodedImage(b"\xff\xd8\xff" * 10, 10, 10) if encoded else np.zeros((10, 10, 3), np.uint8)
    model = Model(SPEC, cache=False)
    assert model._encodes([Message.user(Frames((image,), (0.0,)), "q")]) is not encoded
    assert model._encodes([Message.user("text only")]) is False
