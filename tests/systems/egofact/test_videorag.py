"""`videorag-jeong` end to end on the sample benchmark, offline: clips retrieved by a tiny random
CLIP (built in the test) or by their descriptions, passages by the packaged MiniLM or a loopback
`/v1/embeddings`, and the frames and passages sent to a loopback OpenAI-compatible chat server
that answers with the gold letter of the question it reads."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

pytest.importorskip("sentence_transformers")
pytest.importorskip("transformers")

from test_graphrag import LoopbackModels, answer_each, content, predictions_of, sample_config
from tiny_models import build_tiny_clip

import vqakit.systems.egofact.baselines  # noqa: F401  (registers the methods, as the egofact system does)
from vqakit.benchmarks import load_benchmark
from vqakit.methods import get_method
from vqakit.retrieval import passage_text
from vqakit.runner import run_eval
from vqakit.scoring import LETTERS
from vqakit.systems.egofact.videorag_jeong import VideoRagOptions, frames_per_clip, run_videorag_jeong


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("sample")


def images(messages: list[dict[str, Any]]) -> int:
    return sum(
        1
        for message in messages
        if isinstance(message["content"], list)
        for part in message["content"]
        if part.get("type") == "image_url"
    )


@pytest.fixture(scope="module")
def clip_spec(tmp_path_factory) -> str:
    return "clip:" + str(build_tiny_clip(tmp_path_factory.mktemp("clip") / "clip"))


def gold_answers(bench):
    """A chat reply: the gold letter of the question the request asks (the paper's prompt asks for
    the letter only), or a sentence for an open-ended one."""
    gold = {s.question: LETTERS[int(s.answer)] for s in bench.samples if s.choices is not None}

    def reply(messages: list[dict[str, Any]]) -> str:
        text = content(messages[-1])
        asked = re.search(r"Considering the given videos, explain (.*)", text)
        assert asked is not None, text
        return gold.get(asked.group(1).strip(), "A rabbit on a hill.")

    return reply


def test_frames_split_evenly_over_the_clips():
    assert frames_per_clip(15, 5) == [3, 3, 3, 3, 3]
    assert frames_per_clip(15, 4) == [4, 4, 4, 3]  # the better-ranked clips take the rest
    assert frames_per_clip(2, 3) == [1, 1, 0]


def test_videorag_jeong_run_on_the_sample(tmp_path, bench, clip_spec):
    with LoopbackModels(gold_answers(bench)) as server:
        vlm = "Qwen2.5-VL-3B-Instruct"
        config = sample_config(
            "videorag-jeong", server, vlm, image_embedder=clip_spec, index=str(tmp_path / "index")
        )
        outcome = run_eval(config, tmp_path / "run")
        chats = list(server.chats)
    assert len(chats) == len(bench.samples) and all(images(messages) == 15 for messages in chats)

    predictions = predictions_of(tmp_path / "run", bench)
    for sample, prediction in predictions:
        trace = prediction["retrieval"]
        assert trace["clip_source"] == "frames" and trace["query"] == sample.question
        assert len(trace["clips"]) == 5 and len(trace["passages"]) == 5
        assert [len(trace["frames_s"][clip]) for clip in trace["clips"]] == [3, 3, 3, 3, 3]
        assert len(prediction["frames_s"]) == 15 and len(prediction["images"]) == 5  # a strip per clip
        for clip in trace["clips"]:
            video = bench.clips[clip].video
            assert all(
                (video.start_s or 0) - 0.05 <= t <= (video.end_s or 1e9) for t in trace["frames_s"][clip]
            )
        for passage in trace["passages"]:
            assert passage_text(bench.passages[passage]).strip() in prediction["prompt"]
        assert prediction["prompt"].startswith("Reference passages:")
        if sample.choices is not None:
            assert prediction["choice"] == sample.answer and prediction["extraction"]
            assert f"({', '.join(LETTERS[: len(sample.choices) - 1])}, or" in prediction["prompt"]
    results = outcome.results
    assert results["overall"]["accuracy"] == 1.0
    assert results["retrieval"]["clips"]["all"]["n"] == len(bench.samples)
    assert results["retrieval"]["passages"]["all"]["n"] == sum(1 for s in bench.samples if s.gold_passages)
    assert "Retrieval success" in (tmp_path / "run/report.html").read_text()
    strip = Image.open(tmp_path / "run" / predictions[0][1]["images"][0])
    assert strip.width > 2 * strip.height  # three frames side by side


def test_description_retrieval_over_an_embeddings_api(tmp_path, bench):
    """No visual index: clips are found by their descriptions, with the text embedder, here a
    loopback `/v1/embeddings`; 4 clips share the 15 frames."""
    sample = next(s for s in bench.samples if s.id == "hop2-rabbit")
    with LoopbackModels(gold_answers(bench)) as server:
        options = VideoRagOptions(
            index=str(tmp_path / "index"), text_embedder=f"openai-compatible:{server.url}#embed", top_clips=4
        )
        (prediction,) = answer_each(
            run_videorag_jeong, [sample], bench, server, options, artifacts=tmp_path / "run"
        )
        (messages,) = server.chats
        embedded = list(server.embedded)
    assert prediction.error is None and prediction.choice == sample.answer
    trace = prediction.retrieval
    assert trace["clip_source"] == "descriptions" and len(trace["clips"]) == 4
    assert [len(trace["frames_s"][clip]) for clip in trace["clips"]] == [4, 4, 4, 3]
    assert images(messages) == 15 and sample.question in embedded  # the question as asked
    assert all(Path(tmp_path / "run" / strip).exists() for strip in prediction.images)
    assert all(f"{LETTERS[i]}. {choice}" in prediction.prompt for i, choice in enumerate(sample.choices))


def test_options_and_description(bench):
    videorag = get_method("videorag-jeong")
    options = videorag.parse_options({})
    assert (options.top_clips, options.top_passages, options.frames) == (5, 5, 15)
    shown = videorag.shown(options, bench.card.protocol)
    assert "top 5 clips" in shown and "15 frames in all" in shown and "top 5 passages" in shown
    with pytest.raises(ValueError, match="image-text embedder"):
        videorag.parse_options({"image_embedder": "minilm"})
